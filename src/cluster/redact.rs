//! What a message may not carry: credentials. An API server's error body, an exec plugin's
//! error line and the text of a client error can echo a request's `Authorization` header, a
//! token or a URL with a password; each becomes a message only through [`redact`].

/// What stands in for what was taken out.
pub const REDACTED: &str = "[redacted]";

/// The shortest run of base64 or hex characters taken for a token.
const TOKEN_AT_LEAST: usize = 32;

/// Words whose value, after `=` or `:`, is a credential.
const SECRET_KEYS: &[&str] = &[
    "token",
    "secret",
    "password",
    "passwd",
    "apikey",
    "api_key",
    "api-key",
    "credential",
    "credentials",
];

/// `text` without credentials: the value of an `Authorization` header (to the end of its
/// line), what follows `Bearer` or `Basic`, the value of a key that names a secret
/// (`VAULT_TOKEN=…`, `"password": "…"`), JSON Web Tokens, long runs of base64 or hex (32
/// characters or more, mixed case and digits, or hex), and the user and password of a URL.
pub fn redact(text: &str) -> String {
    text.split_inclusive('\n')
        .map(redact_line)
        .collect::<String>()
}

fn redact_line(line: &str) -> String {
    let line = without_userinfo(line);
    let lower = line.to_ascii_lowercase();
    let bytes = line.as_bytes();
    // The header's value is everything after it, on its line.
    for (at, _) in lower.match_indices("authorization") {
        let after = at + "authorization".len();
        let value_at = skip(bytes, after, b"\"' \t[");
        if bytes
            .get(value_at)
            .is_some_and(|b| matches!(b, b':' | b'='))
        {
            let value_at = skip(bytes, value_at + 1, b"\"' \t[");
            if value_at < line.trim_end().len() {
                let end = if line.ends_with('\n') { "\n" } else { "" };
                return format!("{}{REDACTED}{end}", &line[..value_at]);
            }
        }
    }
    let mut hidden: Vec<(usize, usize)> = Vec::new();
    // The value after a key that names a secret, and after `=` or `:`.
    for key in SECRET_KEYS {
        for (at, _) in lower.match_indices(key) {
            let after = skip(bytes, at + key.len(), b"\"' \t");
            if !bytes.get(after).is_some_and(|b| matches!(b, b':' | b'='))
                || line[after..].starts_with("://")
            {
                continue;
            }
            let start = skip(bytes, after + 1, b"\"' \t=:");
            hidden.push((start, value_end(bytes, start)));
        }
    }
    // What follows `Bearer` or `Basic`.
    for scheme in ["bearer ", "basic "] {
        for (at, _) in lower.match_indices(scheme) {
            if at > 0 && bytes[at - 1].is_ascii_alphanumeric() {
                continue;
            }
            let start = skip(bytes, at + scheme.len(), b" \t");
            hidden.push((start, value_end(bytes, start)));
        }
    }
    // Token-shaped runs.
    let mut at = 0;
    while at < bytes.len() {
        let end = at
            + bytes[at..]
                .iter()
                .position(|b| !is_token_byte(*b))
                .unwrap_or(bytes.len() - at);
        if end > at && token_shaped(&line[at..end]) {
            hidden.push((at, end));
        }
        at = end + 1;
    }
    hidden.retain(|(start, end)| start < end);
    hidden.sort();
    let mut out = String::with_capacity(line.len());
    let mut done = 0;
    for (start, end) in hidden {
        if end <= done {
            continue;
        }
        let start = start.max(done);
        out.push_str(&line[done..start]);
        out.push_str(REDACTED);
        done = end;
    }
    out.push_str(&line[done..]);
    out
}

/// The first index from `at` whose byte is not one of `these`.
fn skip(bytes: &[u8], at: usize, these: &[u8]) -> usize {
    let mut at = at;
    while bytes.get(at).is_some_and(|b| these.contains(b)) {
        at += 1;
    }
    at
}

/// Where a value that starts at `start` ends: at a space, a quote or punctuation that ends a
/// value in JSON, YAML or a command line.
fn value_end(bytes: &[u8], start: usize) -> usize {
    let mut end = start;
    while bytes
        .get(end)
        .is_some_and(|b| !b.is_ascii_whitespace() && !b"\"',;&)]}".contains(b))
    {
        end += 1;
    }
    end
}

/// A byte of base64 (standard or URL-safe), of hex, or of a JSON Web Token.
fn is_token_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || b"+/=_-.".contains(&byte)
}

/// A JSON Web Token, or a run with a long part of hex or of mixed-case letters and digits
/// (which no Kubernetes name, UID or path is).
fn token_shaped(run: &str) -> bool {
    if run.starts_with("eyJ") && run.len() >= 16 {
        return true;
    }
    run.split(['/', '.']).any(|part| {
        let part = part.trim_end_matches('=');
        part.len() >= TOKEN_AT_LEAST
            && (part.chars().all(|c| c.is_ascii_hexdigit())
                || (part.chars().any(|c| c.is_ascii_uppercase())
                    && part.chars().any(|c| c.is_ascii_lowercase())
                    && part.chars().any(|c| c.is_ascii_digit())))
    })
}

/// `text` with the user information of each URL in it (`https://admin:secret@host`) taken
/// out: `https://host`.
pub fn without_userinfo(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("://") {
        let (before, after) = rest.split_at(at + 3);
        out.push_str(before);
        let authority_end = after
            .find(|c: char| c.is_whitespace() || matches!(c, '/' | '?' | '#' | '"' | '\'' | '`'))
            .unwrap_or(after.len());
        match after[..authority_end].rfind('@') {
            Some(user_end) => rest = &after[user_end + 1..],
            None => rest = after,
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_authorization_header_loses_its_value() {
        assert_eq!(
            redact("echo: Authorization: Bearer abc.def"),
            "echo: Authorization: [redacted]"
        );
        assert_eq!(
            redact(r#"{"headers":{"Authorization":["Bearer abc"]}}"#),
            r#"{"headers":{"Authorization":["[redacted]"#
        );
        assert_eq!(
            redact("no authorization given; Authorization: x"),
            "no authorization given; Authorization: [redacted]"
        );
        assert_eq!(
            redact("authorization=Basic dXNlcjpwYXNz\nnext line"),
            "authorization=[redacted]\nnext line"
        );
    }

    #[test]
    fn bearer_and_basic_lose_what_follows() {
        assert_eq!(
            redact("sent Bearer s3cr3t, refused"),
            "sent Bearer [redacted], refused"
        );
        assert_eq!(redact("basic dXNlcjpwYXNz"), "basic [redacted]");
    }

    #[test]
    fn a_key_that_names_a_secret_loses_its_value() {
        assert_eq!(
            redact("env VAULT_TOKEN=hvs.short and HOME=/root"),
            "env VAULT_TOKEN=[redacted] and HOME=/root"
        );
        assert_eq!(
            redact(r#"{"password":"hunter2","user":"bob"}"#),
            r#"{"password":"[redacted]","user":"bob"}"#
        );
        assert_eq!(redact("client secret: abc"), "client secret: [redacted]");
        assert_eq!(
            redact("token://host is not a secret"),
            "token://host is not a secret"
        );
    }

    #[test]
    fn token_shaped_runs_are_taken_out() {
        let jwt = "eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.c2ln";
        assert_eq!(redact(&format!("bad {jwt} here")), "bad [redacted] here");
        let base64 = "Zm9vYmFyYmF6cXV4cXV1eFhZWjEyMzQ1Njc4OTA";
        assert_eq!(redact(&format!("key {base64}")), "key [redacted]");
        let hex = "0123456789abcdef0123456789abcdef";
        assert_eq!(redact(hex), REDACTED);
        assert_eq!(
            redact("vault hvs.CAESIJlWh0OxN3BZ5XhEcZQxYmV9fA2s"),
            "vault [redacted]"
        );
    }

    #[test]
    fn names_uids_and_paths_stay() {
        for text in [
            "pods \"kube-controller-manager-7f9d8c6b5-x2x4z\" is forbidden",
            "uid 1b4e28ba-2fa1-11d2-883f-0016d3cca427 does not match",
            "the page could not be found: /apis/apiextensions.k8s.io/v1/customresourcedefinitions",
            "GET /api/v1/namespaces/shop/configmaps?limit=500: 403 Forbidden",
        ] {
            assert_eq!(redact(text), text);
        }
    }

    #[test]
    fn a_url_loses_its_user_and_password() {
        assert_eq!(
            without_userinfo("https://admin:PASSWORD@host:6443/api"),
            "https://host:6443/api"
        );
        assert_eq!(
            redact("error connecting to https://u:p@10.0.0.1, retry"),
            "error connecting to https://10.0.0.1, retry"
        );
        assert_eq!(without_userinfo("mail me@host"), "mail me@host");
        assert_eq!(without_userinfo("https://host/a@b"), "https://host/a@b");
    }
}
