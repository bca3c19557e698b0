//! Where the bytes JSON's structure turns on are: `"`, `\`, `{`, `}`, `[` and `]`, found eight
//! bytes at a time with plain integer arithmetic.
//!
//! The JSON path skips over most of a document (`managedFields`, `spec`, `status`) and checks
//! all of it for what YAML reads differently. Both only need these six bytes; in a Kubernetes
//! object they come about one in eight, between runs of indentation and short strings. Looking
//! at every byte, or starting a vectorised search at every string, costs several times more.

/// The positions in `bytes`, from `from` on, of every `"`, `\`, `{`, `}`, `[` and `]`, in
/// order.
pub fn structural(bytes: &[u8], from: usize) -> Structural<'_> {
    Structural {
        bytes,
        word_at: from,
        mask: bytes.get(from..).map_or(0, word_mask),
    }
}

/// The iterator [`structural`] returns.
pub struct Structural<'b> {
    bytes: &'b [u8],
    /// Where the word `mask` covers starts.
    word_at: usize,
    /// The high bit of each structural byte of that word not yet returned.
    mask: u64,
}

impl Iterator for Structural<'_> {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        while self.mask == 0 {
            self.word_at += 8;
            if self.word_at >= self.bytes.len() {
                return None;
            }
            self.mask = word_mask(&self.bytes[self.word_at..]);
        }
        let at = self.word_at + self.mask.trailing_zeros() as usize / 8;
        self.mask &= self.mask - 1;
        Some(at)
    }
}

const LOW_SEVEN: u64 = 0x7f7f_7f7f_7f7f_7f7f;

/// The high bit of each byte of the first eight of `bytes` (fewer at the end) that is
/// structural; byte `k` is bits `8k..8k + 8`.
fn word_mask(bytes: &[u8]) -> u64 {
    let word = match bytes.first_chunk::<8>() {
        Some(word) => u64::from_le_bytes(*word),
        None => {
            // Zeros after the last bytes, which are not structural.
            let mut padded = [0u8; 8];
            padded[..bytes.len()].copy_from_slice(bytes);
            u64::from_le_bytes(padded)
        }
    };
    // `[` and `]` differ from `{` and `}` only in the bit 0x20.
    let folded = word | 0x2020_2020_2020_2020;
    equal_bytes(word, b'"')
        | equal_bytes(word, b'\\')
        | equal_bytes(folded, b'{')
        | equal_bytes(folded, b'}')
}

/// The high bit of each byte of `word` equal to `byte`, exactly: no carry runs from one byte
/// into the next.
fn equal_bytes(word: u64, byte: u8) -> u64 {
    let zero_where_equal = word ^ (u64::from(byte) * 0x0101_0101_0101_0101);
    let high_unless_zero = ((zero_where_equal & LOW_SEVEN) + LOW_SEVEN) | zero_where_equal;
    !(high_unless_zero | LOW_SEVEN)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn is_structural(b: u8) -> bool {
        matches!(b, b'"' | b'\\' | b'{' | b'}' | b'[' | b']')
    }

    fn naive(bytes: &[u8], from: usize) -> Vec<usize> {
        (from..bytes.len())
            .filter(|&i| is_structural(bytes[i]))
            .collect()
    }

    #[test]
    fn finds_each_structural_byte_once_in_order() {
        let text = br#"{"a": [1, {"b\"c": "\\"}], "d": {}}"#;
        for from in 0..=text.len() {
            assert_eq!(
                structural(text, from).collect::<Vec<_>>(),
                naive(text, from)
            );
        }
        assert_eq!(structural(b"", 0).count(), 0);
        assert_eq!(structural(b"abc", 7).count(), 0);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]

        /// Every byte value, at every offset of a word and at the end of the text.
        #[test]
        fn agrees_with_a_byte_by_byte_search(
            bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..80),
            from in 0usize..90,
        ) {
            proptest::prop_assert_eq!(structural(&bytes, from).collect::<Vec<_>>(), naive(&bytes, from));
        }

        #[test]
        fn agrees_on_json_like_text(
            text in r#"[ {}\[\]"\\a:,\n\x00\x7f\xc3\xa9\x5b\x7b\x3b\x5d\x7d\xdb\xfb\xdd\xfd]{0,70}"#,
            from in 0usize..20,
        ) {
            let bytes = text.as_bytes();
            proptest::prop_assert_eq!(structural(bytes, from).collect::<Vec<_>>(), naive(bytes, from));
        }
    }
}
