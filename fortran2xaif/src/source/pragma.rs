//! `$openad` pragmas: comment lines `!$openad KEYWORD ...` (fixed form also
//! `c$openad`, `C$openad`, `*$openad`), case-insensitive; and the one
//! Tapenade directive we understand, `!$AD BINOMIAL-CKP nsteps nsnaps
//! firststep` (the same as `!$openad CHECKPOINT BINOMIAL(snapshots=nsnaps)`).

use crate::diagnostics::{Diagnostic, Kind, Location};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pragma {
    pub kind: PragmaKind,
    /// Variable names, lower-cased (empty for `Other`).
    pub names: Vec<String>,
    /// 1-based line of the pragma in `NormalizedSource::text`.
    pub line: usize,
    /// Where the pragma's comment starts in the original file.
    pub location: Location,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PragmaKind {
    Independent,
    Dependent,
    /// `CHECKPOINT BINOMIAL(snapshots=S)` (or Tapenade's `$AD
    /// BINOMIAL-CKP`): the counted DO loop on the next line is reversed
    /// with at most S snapshots. `at` is where S is written.
    CheckpointBinomial {
        snapshots: SnapshotCount,
        at: Location,
    },
    /// Any other pragma: the text after `$openad`, trimmed, as written
    /// (e.g. `XXX Template ad_template.f`). Judging it is the caller's job.
    Other(String),
}

/// The number of snapshots of a checkpointed loop as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SnapshotCount {
    Literal(i64),
    /// A named integer constant or variable, lower-cased.
    Name(String),
}

const SENTINEL: &str = "$openad";
/// Tapenade's directive sentinel (`!$AD ...`).
const TAPENADE_SENTINEL: &str = "$ad";

/// If `comment_body` (the comment text after its `!`, `c` or `*`) is a
/// pragma, its text after the sentinel and that text's byte offset in
/// `comment_body`.
pub(crate) fn pragma_body(comment_body: &str) -> Option<(&str, usize)> {
    let head = comment_body.get(..SENTINEL.len())?;
    if !head.eq_ignore_ascii_case(SENTINEL) {
        return None;
    }
    let rest = &comment_body[SENTINEL.len()..];
    // `$openadfoo` is not our sentinel.
    if rest.chars().next().is_some_and(is_name_char) {
        return None;
    }
    Some((rest, SENTINEL.len()))
}

/// If `comment_body` is a Tapenade directive (`$AD ...`), its text after
/// the sentinel and that text's byte offset in `comment_body`.
pub(crate) fn tapenade_body(comment_body: &str) -> Option<(&str, usize)> {
    let head = comment_body.get(..TAPENADE_SENTINEL.len())?;
    if !head.eq_ignore_ascii_case(TAPENADE_SENTINEL) {
        return None;
    }
    let rest = &comment_body[TAPENADE_SENTINEL.len()..];
    if rest.chars().next().is_some_and(is_name_char) {
        return None;
    }
    Some((rest, TAPENADE_SENTINEL.len()))
}

/// Whether a comment's text after its `!` (or fixed form's `c`, `*`) is
/// an OpenMP directive (`$omp`, any case), which the tool does not carry
/// into the derivative code.
pub(crate) fn is_openmp_directive(comment_body: &str) -> bool {
    comment_body
        .get(..4)
        .is_some_and(|h| h.eq_ignore_ascii_case("$omp"))
        && !comment_body[4..].chars().next().is_some_and(is_name_char)
}

/// Parses the text after Tapenade's `$AD`: `BINOMIAL-CKP nsteps nsnaps
/// [firststep]` is a binomial checkpoint pragma with nsnaps snapshots
/// (the other two are not needed: the trip count is taken at run time);
/// any other directive is `None` (the caller warns that it is ignored).
pub(crate) fn parse_tapenade(
    body: &str,
    line: usize,
    location: Location,
    body_location: &Location,
) -> Result<Option<Pragma>, Diagnostic> {
    let words = words_with_offsets(body);
    let Some((keyword, _)) = words.first() else {
        return Ok(None);
    };
    if !keyword.eq_ignore_ascii_case("binomial-ckp") {
        return Ok(None);
    }
    let at = |offset: usize| Location {
        column: body_location.column + offset,
        ..body_location.clone()
    };
    let usage = "write it as `!$AD BINOMIAL-CKP nsteps nsnaps firststep`";
    let args: Vec<&(&str, usize)> = words[1..]
        .iter()
        .take_while(|(w, _)| !w.starts_with('!'))
        .collect();
    if args.len() < 2 || args.len() > 3 {
        return Err(Diagnostic::of_kind(Kind::Syntax,
            location,
            format!(
                "malformed BINOMIAL-CKP directive: expected 3 numbers (nsteps nsnaps firststep), found {}",
                args.len()
            ),
        )
        .with_note(usage));
    }
    let (text, offset) = *args[1];
    let snapshots = snapshot_count(text).ok_or_else(|| {
        Diagnostic::of_kind(Kind::Syntax,
            at(offset),
            format!("malformed BINOMIAL-CKP directive: the number of snapshots `{text}` is not an integer or a name"),
        )
        .with_note(usage)
    })?;
    Ok(Some(Pragma {
        kind: PragmaKind::CheckpointBinomial {
            snapshots,
            at: at(offset),
        },
        names: Vec::new(),
        line,
        location,
    }))
}

/// Blank-separated words of `text` with their byte offsets.
fn words_with_offsets(text: &str) -> Vec<(&str, usize)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        match (c.is_whitespace(), start) {
            (true, Some(s)) => {
                out.push((&text[s..i], s));
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push((&text[s..], s));
    }
    out
}

/// An integer literal (optionally signed) or a Fortran name, lower-cased.
fn snapshot_count(text: &str) -> Option<SnapshotCount> {
    let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
    if !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit()) {
        // Too many digits for an i64: certainly not a small count, and
        // certainly not below 1 unless negative.
        let value = text.parse::<i64>().unwrap_or(if text.starts_with('-') {
            i64::MIN
        } else {
            i64::MAX
        });
        return Some(SnapshotCount::Literal(value));
    }
    let mut chars = text.chars();
    (chars.next()?.is_ascii_alphabetic() && chars.all(is_name_char))
        .then(|| SnapshotCount::Name(text.to_ascii_lowercase()))
}

/// Parses the text after `$openad`. `body_location` is the original place of
/// `body`'s first byte (pragma comments are copied unchanged, so columns
/// inside them are plain offsets).
pub(crate) fn parse(
    body: &str,
    line: usize,
    location: Location,
    body_location: &Location,
) -> Result<Pragma, Diagnostic> {
    let leading = body.len() - body.trim_start().len();
    let keyword_text = &body[leading..];
    let keyword_len = keyword_text
        .find(|c: char| !is_name_char(c))
        .unwrap_or(keyword_text.len());
    let keyword = &keyword_text[..keyword_len];
    let kind = if keyword.eq_ignore_ascii_case("independent") {
        PragmaKind::Independent
    } else if keyword.eq_ignore_ascii_case("dependent") {
        PragmaKind::Dependent
    } else if keyword.eq_ignore_ascii_case("checkpoint") {
        let offset = leading + keyword_len;
        let at = |o: usize| Location {
            column: body_location.column + offset + o,
            ..body_location.clone()
        };
        let (snapshots, s_offset) = parse_checkpoint(&body[offset..]).map_err(|(o, expected)| {
            Diagnostic::of_kind(Kind::Syntax,
                at(o),
                format!("malformed CHECKPOINT pragma: expected {expected}"),
            )
            .with_note("write it as `!$openad CHECKPOINT BINOMIAL(snapshots=S)`, S an integer or an integer name")
        })?;
        return Ok(Pragma {
            kind: PragmaKind::CheckpointBinomial {
                snapshots,
                at: at(s_offset),
            },
            names: Vec::new(),
            line,
            location,
        });
    } else {
        return Ok(Pragma {
            kind: PragmaKind::Other(body.trim().to_string()),
            names: Vec::new(),
            line,
            location,
        });
    };
    let list_offset = leading + keyword_len;
    let at = |offset: usize| Location {
        column: body_location.column + offset,
        ..body_location.clone()
    };
    let names = parse_name_list(&body[list_offset..]).map_err(|problem| {
        let keyword_upper = keyword.to_ascii_uppercase();
        let diag = match problem {
            ListProblem::Empty => Diagnostic::of_kind(
                Kind::Syntax,
                location.clone(),
                format!("{keyword_upper} pragma names no variable"),
            ),
            ListProblem::Malformed { offset, expected } => Diagnostic::of_kind(
                Kind::Syntax,
                at(list_offset + offset),
                format!("malformed {keyword_upper} pragma: expected {expected}"),
            ),
        };
        diag.with_note(format!(
            "write it as `!$openad {keyword_upper}(name1, name2, ...)`"
        ))
    })?;
    Ok(Pragma {
        kind,
        names,
        line,
        location,
    })
}

/// `BINOMIAL ( [snapshots =] S )` with blanks anywhere and an optional
/// trailing `! comment`: S and its offset in `text`, or the offset of the
/// problem and what was expected there.
fn parse_checkpoint(text: &str) -> Result<(SnapshotCount, usize), (usize, &'static str)> {
    let malformed = |p: ListProblem| match p {
        ListProblem::Malformed { offset, expected } => (offset, expected),
        ListProblem::Empty => (0, "`BINOMIAL(snapshots=S)`"),
    };
    let mut cursor = Cursor { text, offset: 0 };
    cursor.skip_blanks();
    let start = cursor.offset;
    let kind = cursor.name().map_err(|_| (start, "`BINOMIAL`"))?;
    if kind != "binomial" {
        return Err((start, "`BINOMIAL` (the only checkpointing scheme)"));
    }
    cursor.skip_blanks();
    cursor
        .expect('(', "`(snapshots=S)` after BINOMIAL")
        .map_err(malformed)?;
    cursor.skip_blanks();
    // `snapshots =` is optional.
    let save = cursor.offset;
    if let Ok(word) = cursor.name() {
        cursor.skip_blanks();
        if word == "snapshots" && cursor.peek() == Some('=') {
            cursor.offset += 1;
        } else {
            cursor.offset = save;
        }
    }
    cursor.skip_blanks();
    let s_start = cursor.offset;
    while let Some(c) = cursor
        .peek()
        .filter(|&c| is_name_char(c) || ((c == '-' || c == '+') && cursor.offset == s_start))
    {
        cursor.offset += c.len_utf8();
    }
    let snapshots = snapshot_count(&text[s_start..cursor.offset]).ok_or((
        s_start,
        "the number of snapshots (an integer or an integer name)",
    ))?;
    cursor.skip_blanks();
    cursor
        .expect(')', "`)` after the number of snapshots")
        .map_err(malformed)?;
    cursor.skip_blanks();
    if !cursor.at_end() && cursor.peek() != Some('!') {
        return Err((cursor.offset, "nothing after `)`"));
    }
    Ok((snapshots, s_start))
}

enum ListProblem {
    Empty,
    Malformed {
        offset: usize,
        expected: &'static str,
    },
}

/// `( name {, name} )` with blanks anywhere and an optional trailing
/// `! comment`; names lower-cased.
fn parse_name_list(text: &str) -> Result<Vec<String>, ListProblem> {
    let mut cursor = Cursor { text, offset: 0 };
    cursor.skip_blanks();
    if cursor.at_end() || cursor.peek() == Some('!') {
        return Err(ListProblem::Empty);
    }
    cursor.expect('(', "`(` and a list of variable names")?;
    cursor.skip_blanks();
    if cursor.peek() == Some(')') {
        return Err(ListProblem::Empty);
    }
    let mut names = Vec::new();
    loop {
        cursor.skip_blanks();
        names.push(cursor.name()?);
        cursor.skip_blanks();
        match cursor.peek() {
            Some(',') => cursor.offset += 1,
            Some(')') => {
                cursor.offset += 1;
                break;
            }
            _ => {
                return Err(ListProblem::Malformed {
                    offset: cursor.offset,
                    expected: "`,` or `)` after a variable name",
                })
            }
        }
    }
    cursor.skip_blanks();
    if !cursor.at_end() && cursor.peek() != Some('!') {
        return Err(ListProblem::Malformed {
            offset: cursor.offset,
            expected: "nothing after `)`",
        });
    }
    Ok(names)
}

struct Cursor<'a> {
    text: &'a str,
    offset: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<char> {
        self.text[self.offset..].chars().next()
    }

    fn at_end(&self) -> bool {
        self.offset >= self.text.len()
    }

    fn skip_blanks(&mut self) {
        while let Some(c) = self.peek().filter(|c| c.is_whitespace()) {
            self.offset += c.len_utf8();
        }
    }

    fn expect(&mut self, wanted: char, expected: &'static str) -> Result<(), ListProblem> {
        if self.peek() == Some(wanted) {
            self.offset += wanted.len_utf8();
            Ok(())
        } else {
            Err(ListProblem::Malformed {
                offset: self.offset,
                expected,
            })
        }
    }

    /// A Fortran name: a letter, then letters, digits and underscores.
    fn name(&mut self) -> Result<String, ListProblem> {
        let start = self.offset;
        if !self.peek().is_some_and(|c| c.is_ascii_alphabetic()) {
            return Err(ListProblem::Malformed {
                offset: start,
                expected: "a variable name",
            });
        }
        while let Some(c) = self.peek().filter(|&c| is_name_char(c)) {
            self.offset += c.len_utf8();
        }
        Ok(self.text[start..self.offset].to_ascii_lowercase())
    }
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_at_column_1(comment_body: &str) -> Result<Pragma, Diagnostic> {
        let (body, offset) = pragma_body(comment_body).expect("is a pragma");
        // As if the comment character sat in column 1.
        let location = Location::new("p.f90", 3, 1);
        let body_location = Location::new("p.f90", 3, 2 + offset);
        parse(body, 3, location, &body_location)
    }

    #[test]
    fn recognises_the_sentinel_case_insensitively() {
        assert!(pragma_body("$openad independent(x)").is_some());
        assert!(pragma_body("$OpenAD DEPENDENT(y)").is_some());
        assert!(pragma_body("$openad").is_some());
        assert!(pragma_body("$openadx").is_none());
        assert!(pragma_body(" $openad x").is_none());
        assert!(pragma_body("$omp parallel").is_none());
        assert!(pragma_body("$open").is_none());
    }

    #[test]
    fn independent_and_dependent_with_several_names() {
        let pragma = parse_at_column_1("$openad INDEPENDENT( X, y_2 ,Zeta)").unwrap();
        assert_eq!(pragma.kind, PragmaKind::Independent);
        assert_eq!(pragma.names, ["x", "y_2", "zeta"]);
        assert_eq!(pragma.line, 3);
        assert_eq!(pragma.location, Location::new("p.f90", 3, 1));
        let pragma = parse_at_column_1("$OPENAD dependent (f) ! the result").unwrap();
        assert_eq!(pragma.kind, PragmaKind::Dependent);
        assert_eq!(pragma.names, ["f"]);
    }

    #[test]
    fn other_pragmas_keep_their_text() {
        let pragma = parse_at_column_1("$openad XXX Template ad_template.f  ").unwrap();
        assert_eq!(
            pragma.kind,
            PragmaKind::Other("XXX Template ad_template.f".into())
        );
        assert!(pragma.names.is_empty());
        let empty = parse_at_column_1("$openad").unwrap();
        assert_eq!(empty.kind, PragmaKind::Other(String::new()));
        // A keyword that merely starts like ours is another pragma.
        let longer = parse_at_column_1("$openad independently(x)").unwrap();
        assert!(matches!(longer.kind, PragmaKind::Other(_)));
    }

    #[test]
    fn empty_lists_are_errors_at_the_pragma() {
        for text in [
            "$openad INDEPENDENT",
            "$openad independent()",
            "$openad independent ( )",
            "$openad INDEPENDENT ! nothing",
        ] {
            let diag = parse_at_column_1(text).unwrap_err();
            assert_eq!(
                diag.message, "INDEPENDENT pragma names no variable",
                "{text}"
            );
            assert_eq!(diag.location, Location::new("p.f90", 3, 1));
        }
        let diag = parse_at_column_1("$openad dependent()").unwrap_err();
        assert_eq!(diag.message, "DEPENDENT pragma names no variable");
    }

    #[test]
    fn malformed_lists_are_errors_at_the_offending_character() {
        // Column 1 is the comment character, the body starts at column 9 and
        // `(` is in column 21.
        let cases = [
            ("$openad independent(x y)", 24, "`,` or `)`"),
            ("$openad independent(x,)", 24, "a variable name"),
            ("$openad independent(1x)", 22, "a variable name"),
            ("$openad independent(x", 23, "`,` or `)`"),
            ("$openad independent x", 22, "`(`"),
            ("$openad independent(x) y", 25, "nothing after"),
            ("$openad independent(x(1))", 23, "`,` or `)`"),
        ];
        for (text, column, expected) in cases {
            let diag = parse_at_column_1(text).unwrap_err();
            assert!(
                diag.message.starts_with("malformed INDEPENDENT pragma"),
                "{text}"
            );
            assert!(diag.message.contains(expected), "{text}: {}", diag.message);
            assert_eq!(diag.location.column, column, "{text}");
        }
    }

    #[test]
    fn checkpoint_binomial_with_a_literal_or_a_name() {
        for (text, expected, column) in [
            (
                "$openad CHECKPOINT BINOMIAL(snapshots=3)",
                SnapshotCount::Literal(3),
                40,
            ),
            (
                "$openad checkpoint binomial ( snapshots = 12 ) ! c",
                SnapshotCount::Literal(12),
                44,
            ),
            (
                "$openad Checkpoint Binomial(NSnap)",
                SnapshotCount::Name("nsnap".into()),
                30,
            ),
        ] {
            let pragma = parse_at_column_1(text).unwrap();
            let PragmaKind::CheckpointBinomial { snapshots, at } = pragma.kind else {
                panic!("{text}: {:?}", pragma.kind);
            };
            assert_eq!(snapshots, expected, "{text}");
            assert_eq!(at.column, column, "{text}");
        }
        // Values below 1 are judged with the loop (pipeline), not here.
        let pragma = parse_at_column_1("$openad CHECKPOINT BINOMIAL(snapshots=-2)").unwrap();
        assert!(matches!(
            pragma.kind,
            PragmaKind::CheckpointBinomial {
                snapshots: SnapshotCount::Literal(-2),
                ..
            }
        ));
    }

    #[test]
    fn malformed_checkpoint_pragmas_are_errors_at_the_offending_character() {
        for (text, column, expected) in [
            ("$openad CHECKPOINT REVOLVE(3)", 21, "`BINOMIAL`"),
            ("$openad CHECKPOINT", 20, "`BINOMIAL`"),
            ("$openad CHECKPOINT BINOMIAL 3", 30, "`(snapshots=S)`"),
            (
                "$openad CHECKPOINT BINOMIAL(snapshots=)",
                40,
                "number of snapshots",
            ),
            ("$openad CHECKPOINT BINOMIAL(snapshots=3", 41, "`)`"),
            ("$openad CHECKPOINT BINOMIAL(3) x", 33, "nothing after"),
        ] {
            let diag = parse_at_column_1(text).unwrap_err();
            assert!(diag.message.contains(expected), "{text}: {}", diag.message);
            assert_eq!(diag.location.column, column, "{text}");
        }
    }

    #[test]
    fn tapenade_binomial_directive() {
        let (body, offset) = tapenade_body("$AD BINOMIAL-CKP 40 3 1").unwrap();
        let location = Location::new("p.f90", 3, 1);
        let body_location = Location::new("p.f90", 3, 2 + offset);
        let pragma = parse_tapenade(body, 3, location.clone(), &body_location)
            .unwrap()
            .unwrap();
        let PragmaKind::CheckpointBinomial { snapshots, at } = pragma.kind else {
            panic!("not a checkpoint");
        };
        assert_eq!(snapshots, SnapshotCount::Literal(3));
        assert_eq!(at.column, 22);
        // Other directives are not ours; a short one is malformed.
        let (body, _) = tapenade_body("$ad nocheckpoint").unwrap();
        assert!(parse_tapenade(body, 3, location.clone(), &body_location)
            .unwrap()
            .is_none());
        let (body, _) = tapenade_body("$AD BINOMIAL-CKP 40").unwrap();
        assert!(parse_tapenade(body, 3, location, &body_location).is_err());
        assert!(tapenade_body("$ADD x").is_none());
        assert!(tapenade_body("$openad x").is_none());
    }
}
