//! The type a scalar resolves to, as Kubernetes' YAML reader types it: plain scalars by their
//! text, tagged ones by their tag.

use super::Scalar;

/// The type a YAML scalar resolves to when Kubernetes tooling (sigs.k8s.io/yaml, which follows
/// YAML 1.1 through go-yaml v2) reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScalarType {
    Null,
    Bool(bool),
    Number,
    String,
}

impl Scalar {
    pub fn resolve(&self) -> ScalarType {
        if !self.plain {
            return ScalarType::String;
        }
        resolve_plain(&self.text)
    }
}

fn resolve_plain(text: &str) -> ScalarType {
    // Most plain scalars are names: longer than any keyword and not starting like a number.
    if text.len() > 5
        && text.as_bytes()[0].is_ascii_alphabetic()
        && !matches!(text.as_bytes()[0], b'e' | b'E')
    {
        return ScalarType::String;
    }
    match text {
        "" | "~" | "null" | "Null" | "NULL" => ScalarType::Null,
        "y" | "Y" | "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => {
            ScalarType::Bool(true)
        }
        "n" | "N" | "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => {
            ScalarType::Bool(false)
        }
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" | "-.inf" | "-.Inf" | "-.INF"
        | ".nan" | ".NaN" | ".NAN" => ScalarType::Number,
        _ if looks_numeric(text) => ScalarType::Number,
        _ => ScalarType::String,
    }
}

fn looks_numeric(text: &str) -> bool {
    let t = text.strip_prefix(['+', '-']).unwrap_or(text);
    if let Some(hex) = t.strip_prefix("0x") {
        return !hex.is_empty() && hex.chars().all(|c| c.is_ascii_hexdigit() || c == '_');
    }
    if let Some(oct) = t.strip_prefix("0o") {
        return !oct.is_empty() && oct.chars().all(|c| ('0'..='7').contains(&c) || c == '_');
    }
    // Decimal integers and floats, with optional exponent: 12, 1_000, 3.5, .5, 1e3, 6.02e+23.
    let (mantissa, exponent) = match t.find(['e', 'E']) {
        Some(i) => (&t[..i], Some(&t[i + 1..])),
        None => (t, None),
    };
    // Underscores separate digits and count as nothing.
    let (whole, frac) = match mantissa.split_once('.') {
        Some((w, f)) => (w, Some(f)),
        None => (mantissa, None),
    };
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit() || b == b'_');
    let has_digits = |s: &str| s.bytes().any(|b| b.is_ascii_digit());
    let whole_ok = digits(whole);
    let frac_ok = frac.is_none_or(digits);
    let has_digit = has_digits(whole) || frac.is_some_and(has_digits);
    let exp_ok = exponent.is_none_or(|e| {
        let e = e.strip_prefix(['+', '-']).unwrap_or(e);
        !e.is_empty() && e.chars().all(|c| c.is_ascii_digit())
    });
    whole_ok
        && frac_ok
        && has_digit
        && exp_ok
        && (exponent.is_none() || frac.is_some() || has_digits(whole))
}

/// Whether a scalar with an explicit tag is typed by its text (`Scalar::plain`), as go-yaml v2
/// resolves tags: `!!bool`, `!!int`, `!!float` and `!!null` keep the type the text has, quoted
/// or not, and refuse text of another type; `!!str`, `!!timestamp` (a string once converted to
/// JSON) and tags outside YAML's core schema make a string.
pub(super) fn typed_by_text(tag: &granit_parser::Tag, text: &str) -> Result<bool, String> {
    if tag.handle() != "tag:yaml.org,2002:" {
        return Ok(false);
    }
    let found = resolve_plain(text);
    let fits = match tag.suffix() {
        "bool" => matches!(found, ScalarType::Bool(_)),
        "int" | "float" => found == ScalarType::Number,
        "null" => found == ScalarType::Null,
        _ => return Ok(false),
    };
    if fits {
        Ok(true)
    } else {
        Err(format!(
            "cannot decode `{text}` as a !!{}: the tag does not fit the value",
            tag.suffix()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_scalars_resolve_like_kubernetes_yaml() {
        for (text, want) in [
            ("yes", ScalarType::Bool(true)),
            ("False", ScalarType::Bool(false)),
            ("~", ScalarType::Null),
            ("123", ScalarType::Number),
            ("1.5e3", ScalarType::Number),
            ("0x1F", ScalarType::Number),
            ("1.2.3", ScalarType::String),
            ("e3", ScalarType::String),
            ("abc", ScalarType::String),
            ("-", ScalarType::String),
        ] {
            let s = Scalar {
                text: text.into(),
                plain: true,
            };
            assert_eq!(s.resolve(), want, "{text}");
        }
        let quoted = Scalar {
            text: "yes".into(),
            plain: false,
        };
        assert_eq!(quoted.resolve(), ScalarType::String);
    }
}
