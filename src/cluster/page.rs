//! One page of a list as the API server sent it, decoded item by item into the objects as
//! kept ([`Stored`]): the page is never held parsed whole.

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use super::snapshot::{Resource, SECRET_DATA, Stored};

/// One page of a list, its objects as kept: what a list reads before the snapshot takes it,
/// so that the page's JSON is dropped as soon as it is read.
#[derive(Debug)]
pub struct Page {
    pub objects: Vec<Stored>,
    /// The token of the next page, if any.
    pub next: Option<String>,
}

impl Page {
    /// A page of `resource`'s list (any `…List`, a `PartialObjectMetadataList` too), as the
    /// server sent it. Its items are taken one at a time as they are parsed: the page is never
    /// held parsed whole, only the objects as kept.
    pub fn decode(resource: &Resource, body: &[u8]) -> Result<Page, String> {
        let mut deserializer = serde_json::Deserializer::from_slice(body);
        let read = PageSeed(resource)
            .deserialize(&mut deserializer)
            .and_then(|page| deserializer.end().map(|()| page))
            .map_err(|e| match e.classify() {
                serde_json::error::Category::Data => format!("its page is not a list: {e}"),
                _ => format!("its page is not JSON: {e}"),
            })?;
        let kind = read.kind.unwrap_or_default();
        if !kind.ends_with("List") {
            let what = match kind.as_str() {
                "" => "a document with no kind".to_string(),
                kind => format!("a document of kind {}", kind.escape_debug()),
            };
            return Err(format!("expected a list, got {what}"));
        }
        Ok(Page {
            objects: read.objects,
            next: read.next.filter(|token| !token.is_empty()),
        })
    }
}

/// What [`PageSeed`] read of a page, before its kind is checked (it may come last).
struct PageRead {
    kind: Option<String>,
    next: Option<String>,
    objects: Vec<Stored>,
}

/// Reads a page's `kind`, `metadata.continue` and `items`, each item kept as soon as it is
/// parsed; anything else is skipped unparsed.
struct PageSeed<'r>(&'r Resource);

impl<'de> DeserializeSeed<'de> for PageSeed<'_> {
    type Value = PageRead;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<PageRead, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for PageSeed<'_> {
    type Value = PageRead;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a list")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<PageRead, A::Error> {
        let mut read = PageRead {
            kind: None,
            next: None,
            objects: Vec::new(),
        };
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match &*key {
                "kind" => read.kind = map.next_value::<Value>()?.as_str().map(str::to_string),
                "metadata" => {
                    read.next = map
                        .next_value::<Value>()?
                        .get("continue")
                        .and_then(Value::as_str)
                        .map(str::to_string);
                }
                "items" => read.objects = map.next_value_seed(ItemsSeed(self.0))?,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(read)
    }
}

/// A page's `items`: each object kept as it is parsed (what is not an object is skipped);
/// `null` is an empty list.
struct ItemsSeed<'r>(&'r Resource);

impl<'de> DeserializeSeed<'de> for ItemsSeed<'_> {
    type Value = Vec<Stored>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Vec<Stored>, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ItemsSeed<'_> {
    type Value = Vec<Stored>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a list of objects")
    }

    fn visit_unit<E>(self) -> Result<Vec<Stored>, E> {
        Ok(Vec::new())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<Stored>, A::Error> {
        let mut objects = Vec::new();
        while let Some(item) = seq.next_element_seed(ItemSeed(self.0))? {
            if let Some(item) = item {
                objects.push(Stored::of(self.0, item));
            }
        }
        Ok(objects)
    }
}

/// One item of a page: an object, parsed without what is not kept of it (skipped unparsed:
/// `managedFields`, the apiVersion and kind its resource gives, and what [`Stored::of`] drops);
/// `None` for what is not an object.
struct ItemSeed<'r>(&'r Resource);

impl<'de> DeserializeSeed<'de> for ItemSeed<'_> {
    type Value = Option<Map<String, Value>>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ItemSeed<'_> {
    type Value = Option<Map<String, Value>>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let resource = self.0;
        let mut item = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let kept = match key.as_str() {
                "metadata" => true,
                "apiVersion" | "kind" => false,
                "status" if resource.phase => true,
                key => resource.whole && !(resource.is_secret() && SECRET_DATA.contains(&key)),
            };
            if !kept {
                map.next_value::<IgnoredAny>()?;
            } else if key == "metadata" {
                let metadata = map.next_value_seed(MetadataSeed)?;
                item.insert(key, Value::Object(metadata));
            } else {
                let value = map.next_value::<Value>()?;
                item.insert(key, value);
            }
        }
        Ok(Some(item))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(None)
    }

    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
}

/// An item's metadata, without its `managedFields` (skipped unparsed); what is not an object
/// is none ([`Stored::of`] keeps no other).
struct MetadataSeed;

impl<'de> DeserializeSeed<'de> for MetadataSeed {
    type Value = Map<String, Value>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for MetadataSeed {
    type Value = Map<String, Value>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("an object's metadata")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut metadata = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if key == "managedFields" {
                map.next_value::<IgnoredAny>()?;
            } else {
                let value = map.next_value::<Value>()?;
                metadata.insert(key, value);
            }
        }
        Ok(metadata)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Map::new())
    }

    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(Map::new())
    }

    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        Ok(Map::new())
    }

    fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
        Ok(Map::new())
    }

    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        Ok(Map::new())
    }

    fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
        Ok(Map::new())
    }

    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(Map::new())
    }
}
