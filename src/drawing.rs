//! Graphviz (dot) and Mermaid writers shared by `tree` and `delete-preview`: shapes with a label
//! of one or more lines, an optional class (its colours, and a legend entry), and arrows from
//! owner to dependent with an optional label and style.

use std::fmt::Write;

/// How a box is drawn: its look in dot and in Mermaid, and what the legend calls it.
pub(crate) struct Class {
    pub name: &'static str,
    /// Graphviz node attributes.
    pub dot: &'static str,
    /// A Mermaid `classDef` body.
    pub mermaid: &'static str,
    /// The legend's words for it; `None` keeps it out of the legend.
    pub legend: Option<&'static str>,
}

pub(crate) struct Shape {
    pub id: String,
    /// The label's lines (escaped for a terminal already; quoted here for each format).
    pub lines: Vec<String>,
    pub class: Option<&'static Class>,
    /// Drawn with a thick border (the object a delete starts at).
    pub emphasis: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Line {
    Solid,
    /// Red and dashed (dotted in Mermaid): a reference that does not count.
    Broken,
    /// Grey and dashed (dotted in Mermaid): a reference removed.
    Removed,
    /// Thick: a dependent the owner waits for.
    Thick,
}

pub(crate) struct Arrow {
    pub from: String,
    pub to: String,
    pub label: Option<String>,
    pub line: Line,
}

pub(crate) struct Drawing {
    /// The dot graph's name.
    pub name: &'static str,
    pub shapes: Vec<Shape>,
    pub arrows: Vec<Arrow>,
    /// Classes in the order the legend lists them (those no box has are left out of it).
    pub classes: Vec<&'static Class>,
}

impl Drawing {
    /// The classes some box has, in `classes` order.
    fn used(&self) -> Vec<&'static Class> {
        self.classes
            .iter()
            .copied()
            .filter(|class| {
                self.shapes
                    .iter()
                    .any(|b| b.class.is_some_and(|c| c.name == class.name))
            })
            .collect()
    }
}

pub(crate) fn dot(drawing: &Drawing) -> String {
    let quote = |s: &str| s.replace('\\', "\\\\").replace('"', "\\\"");
    let mut out = format!(
        "digraph {} {{\n  rankdir=LR;\n  node [shape=box, fontname=\"Helvetica\"];\n",
        drawing.name
    );
    let used = drawing.used();
    if used.iter().any(|c| c.legend.is_some()) {
        out.push_str("  edge [fontname=\"Helvetica\", fontsize=10];\n");
    }
    for b in &drawing.shapes {
        let mut attributes = vec![format!(
            "label=\"{}\"",
            b.lines
                .iter()
                .map(|l| quote(l))
                .collect::<Vec<_>>()
                .join("\\n")
        )];
        if let Some(class) = b.class {
            attributes.push(class.dot.to_string());
        }
        if b.emphasis {
            attributes.push("penwidth=3".to_string());
        }
        let _ = writeln!(out, "  {} [{}];", b.id, attributes.join(", "));
    }
    for arrow in &drawing.arrows {
        let mut attributes = Vec::new();
        if let Some(label) = &arrow.label {
            attributes.push(format!("label=\"{}\"", quote(label)));
        }
        match arrow.line {
            Line::Solid => {}
            Line::Broken => attributes.push("style=dashed, color=red, fontcolor=red".to_string()),
            Line::Removed => {
                attributes.push("style=dashed, color=gray50, fontcolor=gray30".to_string());
            }
            Line::Thick => attributes.push("penwidth=3".to_string()),
        }
        let style = if attributes.is_empty() {
            String::new()
        } else {
            format!(" [{}]", attributes.join(", "))
        };
        let _ = writeln!(out, "  {} -> {}{style};", arrow.from, arrow.to);
    }
    let legend: Vec<&Class> = used.into_iter().filter(|c| c.legend.is_some()).collect();
    if !legend.is_empty() {
        out.push_str(
            "  subgraph cluster_legend {\n    label=\"Legend\";\n    fontname=\"Helvetica\";\n    \
             color=gray60;\n",
        );
        for class in &legend {
            let _ = writeln!(
                out,
                "    legend_{} [label=\"{}\", {}];",
                class.name,
                quote(class.legend.unwrap_or_default()),
                class.dot
            );
        }
        // One above the other (the graph runs left to right: one rank is a column).
        let names: Vec<String> = legend
            .iter()
            .map(|c| format!("legend_{}", c.name))
            .collect();
        let _ = writeln!(out, "    {{rank=same; {};}}", names.join("; "));
        out.push_str("  }\n");
    }
    out.push_str("}\n");
    out
}

pub(crate) fn mermaid(drawing: &Drawing) -> String {
    // Mermaid labels are quoted; a quote inside is written as an entity, and lines are broken
    // with `<br>`.
    let quote = |s: &str| s.replace('"', "#quot;");
    let mut out = String::from("flowchart LR\n");
    for b in &drawing.shapes {
        let lines: Vec<String> = b.lines.iter().map(|l| quote(l)).collect();
        let _ = writeln!(out, "  {}[\"{}\"]", b.id, lines.join("<br>"));
    }
    for arrow in &drawing.arrows {
        let label = arrow.label.as_deref().map(quote);
        let line = match (arrow.line, label) {
            (Line::Solid, Some(label)) => format!("-- {label} -->"),
            (Line::Solid, None) => "-->".to_string(),
            (Line::Broken | Line::Removed, Some(label)) => format!("-. {label} .->"),
            (Line::Broken | Line::Removed, None) => "-.->".to_string(),
            (Line::Thick, Some(label)) => format!("== {label} ==>"),
            (Line::Thick, None) => "==>".to_string(),
        };
        let _ = writeln!(out, "  {} {line} {}", arrow.from, arrow.to);
    }
    let used = drawing.used();
    let legend: Vec<&Class> = used
        .iter()
        .copied()
        .filter(|c| c.legend.is_some())
        .collect();
    if !legend.is_empty() {
        out.push_str("  subgraph legend [Legend]\n    direction TB\n");
        for class in &legend {
            let _ = writeln!(
                out,
                "    legend_{}[\"{}\"]",
                class.name,
                quote(class.legend.unwrap_or_default())
            );
        }
        out.push_str("  end\n");
    }
    for class in &used {
        let _ = writeln!(out, "  classDef {} {}", class.name, class.mermaid);
        let mut ids: Vec<String> = drawing
            .shapes
            .iter()
            .filter(|b| b.class.is_some_and(|c| c.name == class.name))
            .map(|b| b.id.clone())
            .collect();
        if class.legend.is_some() {
            ids.push(format!("legend_{}", class.name));
        }
        let _ = writeln!(out, "  class {} {}", ids.join(","), class.name);
    }
    for b in drawing.shapes.iter().filter(|b| b.emphasis) {
        let _ = writeln!(out, "  style {} stroke-width:4px", b.id);
    }
    out
}
