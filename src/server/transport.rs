//! Frames on standard input and output: `Content-Length: N`, a blank line, N bytes of JSON.
//!
//! The reader is the server's own, so that no input ends it: a frame it cannot read is
//! answered with the JSON-RPC error the specification gives (a parse error, or an invalid
//! request) and skipped, and the server reads on. A header block is at most [`MAX_HEADER`]
//! bytes and a body at most [`MAX_BODY`]; a body is read as it arrives, never reserved ahead
//! from the length it declares. A header the reader cannot use (no length, a length that is
//! not a number or is too big, a line too long) ends the frame it began: the reader reads on
//! from the next `Content-Length:` it meets.

use std::io::{self, BufRead, Read, Write};

use crossbeam_channel::Sender;
use lsp_server::{Connection, Message, Notification, Request, RequestId, Response};
use serde_json::Value;

/// The most bytes a frame's header block may hold.
pub(super) const MAX_HEADER: usize = 8 * 1024;
/// The most bytes a frame's body may hold: 256 MiB.
pub(super) const MAX_BODY: usize = 256 * 1024 * 1024;

const PARSE_ERROR: i32 = -32700;
const INVALID_REQUEST: i32 = -32600;
const LENGTH: &[u8] = b"content-length:";

/// A connection over standard input and output, and the thread that writes its messages.
/// Join the writer once the connection is dropped, so that every answer is out; the reader
/// stops at `exit` or at the end of the input, and is never waited for.
pub(super) fn stdio() -> (Connection, std::thread::JoinHandle<io::Result<()>>) {
    let (writer_sender, writer_receiver) = crossbeam_channel::bounded::<Message>(0);
    let (reader_sender, reader_receiver) = crossbeam_channel::bounded::<Message>(0);
    let writer = std::thread::Builder::new()
        .name("ownerlint-writer".into())
        .spawn(move || {
            for message in writer_receiver {
                message.write(&mut io::stdout().lock())?;
            }
            Ok(())
        });
    let reader = std::thread::Builder::new()
        .name("ownerlint-reader".into())
        .spawn(move || {
            let stdin = io::stdin();
            read(&mut stdin.lock(), &reader_sender, &mut |answer: &Value| {
                write_raw(&mut io::stdout().lock(), answer)
            });
        });
    let writer = match (writer, reader) {
        (Ok(writer), Ok(_)) => writer,
        // Without threads there is nothing to serve with: the loop sees a closed input.
        (writer, _) => writer.unwrap_or_else(|e| std::thread::spawn(move || Err(e))),
    };
    (
        Connection {
            sender: writer_sender,
            receiver: reader_receiver,
        },
        writer,
    )
}

/// Read frames from `input` and hand each message to `messages` until the input ends, an
/// `exit` notification has been handed on, or nobody takes messages any more. Bad frames are
/// answered through `answer` (a JSON-RPC error whose id may be null, which [`Message`] cannot
/// hold) and logged on standard error.
pub(super) fn read(
    input: &mut impl BufRead,
    messages: &Sender<Message>,
    answer: &mut dyn FnMut(&Value) -> io::Result<()>,
) {
    let mut frames = Frames {
        input,
        resync: false,
    };
    loop {
        let outcome = match frames.next() {
            Ok(Frame::Body(body)) => message(&body),
            Ok(Frame::Bad(why)) => Err((PARSE_ERROR, why, Value::Null)),
            Ok(Frame::End) | Err(_) => return,
        };
        match outcome {
            Ok(Some(message)) => {
                let exit = matches!(&message, Message::Notification(n) if n.method == "exit");
                if messages.send(message).is_err() || exit {
                    return;
                }
            }
            Ok(None) => {}
            Err((code, why, id)) => {
                log(&why);
                let error = serde_json::json!({
                    "jsonrpc": "2.0",
                    "id": id,
                    "error": {"code": code, "message": why},
                });
                if answer(&error).is_err() {
                    return;
                }
            }
        }
    }
}

fn log(why: &str) {
    let _ = writeln!(io::stderr(), "ownerlint server: {why}");
}

fn write_raw(out: &mut impl Write, value: &Value) -> io::Result<()> {
    let text = value.to_string();
    write!(out, "Content-Length: {}\r\n\r\n{text}", text.len())?;
    out.flush()
}

/// The message a frame's body holds; `None` for one to skip (a response that is not one);
/// else the error to answer with, and the id to answer (null when there is none to echo).
fn message(body: &[u8]) -> Result<Option<Message>, (i32, String, Value)> {
    // serde_json refuses nesting deeper than 128 and bytes that are not UTF-8.
    let value: Value = serde_json::from_slice(body).map_err(|e| {
        (
            PARSE_ERROR,
            format!("a frame that is not JSON: {e}"),
            Value::Null,
        )
    })?;
    let mut object = match value {
        Value::Object(object) => object,
        Value::Array(_) => {
            return Err((
                INVALID_REQUEST,
                "a batch of messages, which the Language Server Protocol does not have".into(),
                Value::Null,
            ));
        }
        _ => {
            return Err((
                INVALID_REQUEST,
                "a message that is not a JSON object".into(),
                Value::Null,
            ));
        }
    };
    let raw_id = object.remove("id");
    // An id to echo in an error: a string or a number, as JSON-RPC has them, else null.
    let echo = match &raw_id {
        Some(id @ (Value::String(_) | Value::Number(_))) => id.clone(),
        _ => Value::Null,
    };
    let id = match &raw_id {
        Some(Value::String(s)) => Some(RequestId::from(s.clone())),
        Some(Value::Number(n)) => n
            .as_i64()
            .and_then(|n| i32::try_from(n).ok())
            .map(RequestId::from),
        _ => None,
    };
    let params = object.remove("params").unwrap_or(Value::Null);
    match object.remove("method") {
        Some(Value::String(method)) => match (raw_id, id) {
            (None, _) => Ok(Some(Message::Notification(Notification { method, params }))),
            (Some(_), Some(id)) => Ok(Some(Message::Request(Request { id, method, params }))),
            (Some(_), None) => Err((
                INVALID_REQUEST,
                format!("a {method} request whose id is not a string or a 32-bit integer"),
                echo,
            )),
        },
        Some(_) => Err((
            INVALID_REQUEST,
            "a message whose method is not a string".into(),
            echo,
        )),
        None if object.contains_key("result") || object.contains_key("error") => {
            // An answer to one of the server's own requests.
            let Some(raw_id) = raw_id else {
                log("an answer without an id, skipped");
                return Ok(None);
            };
            object.insert("id".into(), raw_id);
            match serde_json::from_value::<Response>(Value::Object(object)) {
                Ok(response) => Ok(Some(Message::Response(response))),
                Err(e) => {
                    log(&format!("an answer that is not one, skipped: {e}"));
                    Ok(None)
                }
            }
        }
        None => Err((
            INVALID_REQUEST,
            "a message with no method, which is neither a request nor a notification".into(),
            echo,
        )),
    }
}

enum Frame {
    Body(Vec<u8>),
    /// A frame whose header cannot be used, and why.
    Bad(String),
    End,
}

struct Frames<'a, R> {
    input: &'a mut R,
    /// The last header could not be used: read on from the next `Content-Length:`.
    resync: bool,
}

enum Line {
    Read(Vec<u8>),
    TooLong,
    End,
}

impl<R: BufRead> Frames<'_, R> {
    fn next(&mut self) -> io::Result<Frame> {
        let mut first = None;
        if self.resync {
            self.resync = false;
            if !self.skip_to_length()? {
                return Ok(Frame::End);
            }
            first = Some(b"Content-Length:".to_vec());
        }
        let mut length: Option<Result<usize, String>> = None;
        let mut used = 0;
        loop {
            let start = first.take().unwrap_or_default();
            let line = match self.line(start, MAX_HEADER.saturating_sub(used))? {
                Line::Read(line) => line,
                Line::TooLong => {
                    return Ok(self.bad(format!("a header longer than {MAX_HEADER} bytes")));
                }
                Line::End => return Ok(Frame::End),
            };
            used += line.len() + 1;
            // The specification ends lines with CR LF; a line ended by LF alone is read too.
            let line = line.strip_suffix(b"\r").unwrap_or(&line);
            if line.is_empty() {
                if used <= 2 {
                    // A blank line between frames.
                    used = 0;
                    continue;
                }
                break;
            }
            let Some(colon) = line.iter().position(|&b| b == b':') else {
                let shown = String::from_utf8_lossy(&line[..line.len().min(80)]).into_owned();
                return Ok(self.bad(format!(
                    "a header line that is not `Name: value`: {shown:?}"
                )));
            };
            let (name, value) = (&line[..colon], &line[colon + 1..]);
            if name.eq_ignore_ascii_case(&LENGTH[..LENGTH.len() - 1]) {
                let value = String::from_utf8_lossy(value);
                let value = value.trim();
                length = Some(match value.parse::<u64>() {
                    Ok(n) if n <= MAX_BODY as u64 => Ok(n as usize),
                    Ok(n) => Err(format!(
                        "a frame of {n} bytes, more than the {MAX_BODY} a frame may hold"
                    )),
                    Err(_) => Err(format!("a Content-Length that is not a number: {value:?}")),
                });
            }
        }
        let length = match length {
            Some(Ok(length)) => length,
            Some(Err(why)) => return Ok(self.bad(why)),
            None => return Ok(self.bad("a frame without Content-Length".into())),
        };
        // Read as it arrives: a length declared is not memory to reserve.
        let mut body = Vec::with_capacity(length.min(64 * 1024));
        (&mut *self.input)
            .take(length as u64)
            .read_to_end(&mut body)?;
        if body.len() < length {
            return Ok(Frame::End);
        }
        Ok(Frame::Body(body))
    }

    fn bad(&mut self, why: String) -> Frame {
        self.resync = true;
        Frame::Bad(why)
    }

    /// A line without its LF, appended to `line`, of at most `limit` bytes.
    fn line(&mut self, mut line: Vec<u8>, limit: usize) -> io::Result<Line> {
        loop {
            let buffer = match self.input.fill_buf() {
                Ok(buffer) => buffer,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if buffer.is_empty() {
                return Ok(Line::End);
            }
            let (taken, done) = match memchr::memchr(b'\n', buffer) {
                Some(at) => (at + 1, true),
                None => (buffer.len(), false),
            };
            let kept = if done { taken - 1 } else { taken };
            if line.len() + kept > limit {
                self.input.consume(taken);
                return Ok(Line::TooLong);
            }
            line.extend_from_slice(&buffer[..kept]);
            self.input.consume(taken);
            if done {
                return Ok(Line::Read(line));
            }
        }
    }

    /// Skip up to and past the next `Content-Length:` (in any case); false at the end of the
    /// input.
    fn skip_to_length(&mut self) -> io::Result<bool> {
        // No proper prefix of the name is also its suffix: a mismatch starts the match over.
        let mut matched = 0;
        loop {
            let buffer = match self.input.fill_buf() {
                Ok(buffer) => buffer,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if buffer.is_empty() {
                return Ok(false);
            }
            let mut used = 0;
            let mut found = false;
            for &byte in buffer {
                used += 1;
                let byte = byte.to_ascii_lowercase();
                if byte == LENGTH[matched] {
                    matched += 1;
                } else {
                    matched = usize::from(byte == LENGTH[0]);
                }
                if matched == LENGTH.len() {
                    found = true;
                    break;
                }
            }
            self.input.consume(used);
            if found {
                return Ok(true);
            }
        }
    }
}
