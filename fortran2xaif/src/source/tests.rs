//! Tests of `load` as a whole: fixed form against gfortran, includes, the
//! line map, pragmas and bad input.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use proptest::prelude::*;

use super::*;

fn write(dir: &Path, name: &str, contents: &str) -> PathBuf {
    let path = dir.join(name);
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).unwrap();
    }
    fs::write(&path, contents).unwrap();
    path
}

/// 1-based line and byte column of the only occurrence of `needle`.
fn position_of(haystack: &str, needle: &str) -> (usize, usize) {
    let found: Vec<usize> = haystack.match_indices(needle).map(|(i, _)| i).collect();
    assert_eq!(found.len(), 1, "`{needle}` must occur once in:\n{haystack}");
    let before = &haystack[..found[0]];
    let line = before.matches('\n').count() + 1;
    let column = found[0] - before.rfind('\n').map_or(0, |i| i + 1) + 1;
    (line, column)
}

/// Asserts that `needle` in the normalised text maps back to `needle` in
/// `original` (the contents of `file`).
fn assert_maps_back(source: &NormalizedSource, needle: &str, file: &Path, original: &str) {
    let (line, column) = position_of(&source.text, needle);
    let (original_line, original_column) = position_of(original, needle);
    assert_eq!(
        source.line_map.location(line, column),
        Location::new(file, original_line, original_column),
        "`{needle}`"
    );
}

/// `line` padded with blanks to column 72, then `tail` in columns 73 and
/// beyond (where old code kept sequence numbers).
fn with_sequence_field(line: &str, tail: &str) -> String {
    format!("{line:<72}{tail}")
}

/// A fixed-form program with what old code has: all comment styles,
/// continuations with comments between, labels, tab format, strings with
/// `!` and doubled quotes, a string and a number continued across lines,
/// sequence numbers in columns 73-80 and an include.
fn fixed_sample() -> String {
    let long_integer = format!("s = {}123", "0".repeat(66 - 4 - 3));
    assert_eq!(long_integer.len(), 66);
    let lines = [
        "c     A fixed-form sample".to_string(),
        "C     upper-case comment".to_string(),
        "*     star comment".to_string(),
        "!     bang comment".to_string(),
        String::new(),
        "      program sample".to_string(),
        "c$openad INDEPENDENT(x)".to_string(),
        "      implicit none".to_string(),
        "      include 'sample.h'".to_string(),
        "      double precision x, y, s".to_string(),
        "      integer i, n".to_string(),
        "      character*40 msg".to_string(),
        "      x = 1.5d0".to_string(),
        "      y = x *".to_string(),
        "c     a comment between continuation lines".to_string(),
        "     &    2.0d0 + ! an inline comment".to_string(),
        "C     another one, and a blank line".to_string(),
        String::new(),
        with_sequence_field("     1    x ** 2", "SEQ00190"),
        with_sequence_field("      y = y + 1.0d0", "+ 1000.0d0"),
        "C$OPENAD DEPENDENT(y)".to_string(),
        "      n = 3".to_string(),
        "      s = 0".to_string(),
        "      do 10 i = 1, n".to_string(),
        "         s = s + i * x * scale".to_string(),
        "   10 continue".to_string(),
        "      msg = 'it''s a ! not a comment'".to_string(),
        "      print *, msg ! trailing comment".to_string(),
        "      print *, \"double \"\"quoted\"\" ! too\"".to_string(),
        "      print 20, s, y".to_string(),
        "   20 format(1x, 'sum=', f8.3, ' y=', f8.3)".to_string(),
        "      print *, 'a string continued".to_string(),
        "     &across lines'".to_string(),
        "\tx = x + 1.0d0".to_string(),
        "\t1   + 2.0d0".to_string(),
        "30\tprint *, 'tabbed', x".to_string(),
        "     0x = x + 0.5d0".to_string(),
        "      goto 40".to_string(),
        "      print *, 'skipped'".to_string(),
        "   40 continue".to_string(),
        format!("      {long_integer}"),
        "     &4".to_string(),
        "      print *, s, x".to_string(),
        "      end".to_string(),
    ];
    let mut text = lines.join("\n");
    text.push('\n');
    text
}

const SAMPLE_INCLUDE: &str = "\
c     included: a parameter
      double precision scale
      parameter (scale =
     &           3.0d0)
";

fn gfortran_run(dir: &Path, source: &Path, form_flag: &str, name: &str) -> String {
    let exe = dir.join(name);
    let compile = Command::new("gfortran")
        .arg(form_flag)
        .arg("-o")
        .arg(&exe)
        .arg(source)
        .current_dir(dir)
        .output()
        .expect("gfortran must be installed for this test");
    assert!(
        compile.status.success(),
        "gfortran {form_flag} {} failed:\n{}\n{}",
        source.display(),
        String::from_utf8_lossy(&compile.stderr),
        fs::read_to_string(source).unwrap_or_default()
    );
    let run = Command::new(&exe).output().unwrap();
    assert!(run.status.success());
    String::from_utf8(run.stdout).unwrap()
}

#[test]
fn fixed_form_program_behaves_the_same_after_normalisation() {
    let dir = tempfile::tempdir().unwrap();
    let original = write(dir.path(), "sample.f", &fixed_sample());
    write(dir.path(), "sample.h", SAMPLE_INCLUDE);
    let source = load(&original, None).unwrap();
    assert!(source.warnings.is_empty(), "{:?}", source.warnings);
    // The normalised text has no includes left; compile it on its own.
    let normalised_dir = dir.path().join("normalised");
    let normalised = write(&normalised_dir, "sample.f90", &source.text);
    let expected = gfortran_run(dir.path(), &original, "-ffixed-form", "original");
    let actual = gfortran_run(&normalised_dir, &normalised, "-ffree-form", "normalised");
    assert_eq!(actual, expected, "normalised text:\n{}", source.text);
    // Sanity: the program really exercised what it claims.
    assert!(expected.contains("it's a ! not a comment"));
    assert!(expected.contains("double \"quoted\" ! too"));
    assert!(expected.contains("1234.000"));
    assert!(!expected.contains("skipped"));
}

#[test]
fn fixed_form_lines_become_free_form_lines() {
    let dir = tempfile::tempdir().unwrap();
    let original = write(dir.path(), "sample.f", &fixed_sample());
    write(dir.path(), "sample.h", SAMPLE_INCLUDE);
    let source = load(&original, None).unwrap();
    let lines: Vec<&str> = source.text.lines().collect();
    assert_eq!(lines[0], "!     A fixed-form sample");
    assert_eq!(lines[2], "!     star comment");
    assert_eq!(lines[6], "!$openad INDEPENDENT(x)");
    // The include line is replaced by the included file's four lines.
    assert_eq!(lines[8], "!     included: a parameter");
    assert_eq!(lines[10], "      parameter (scale = &");
    assert_eq!(lines[11], "     &           3.0d0)");
    assert!(source
        .text
        .contains("      y = x * &\n!     a comment between"));
    assert!(source
        .text
        .contains("     &    2.0d0 + & ! an inline comment\n"));
    assert!(
        source.text.contains("\n     &    x ** 2\n"),
        "sequence field dropped"
    );
    assert!(!source.text.contains("SEQ00190"));
    assert!(!source.text.contains("1000.0d0"));
    assert!(source.text.contains("\n   10 continue\n"));
    assert!(source
        .text
        .contains("\n      x = x + 1.0d0 &\n     &   + 2.0d0\n"));
    assert!(source.text.contains("\n30    print *, 'tabbed', x\n"));
    assert!(source.text.contains("\n      x = x + 0.5d0\n"));
    // A token that reaches column 72 is joined with column 7 of the next line.
    assert!(source.text.contains("0123&\n     &4\n"));
    // A string continued across lines keeps its blanks up to column 72.
    let padding = 66 - "print *, 'a string continued".len();
    let continued = format!("'a string continued{}&\n     &across", " ".repeat(padding));
    assert!(source.text.contains(&continued), "{}", source.text);
    assert_eq!(source.line_map.len(), lines.len());
}

#[test]
fn line_map_points_at_the_original_columns() {
    let dir = tempfile::tempdir().unwrap();
    let sample = fixed_sample();
    let original = write(dir.path(), "sample.f", &sample);
    let include = write(dir.path(), "sample.h", SAMPLE_INCLUDE);
    let source = load(&original, None).unwrap();
    for needle in [
        "program sample",
        "INDEPENDENT",
        "2.0d0 +",
        "an inline comment",
        "x ** 2",
        "do 10",
        "'it''s",
        "across lines",
        "x = x + 1.0d0",
        "+ 2.0d0",
        "print *, 'tabbed'",
        "x = x + 0.5d0",
        "40 continue",
        "DEPENDENT(y)",
    ] {
        assert_maps_back(&source, needle, &original, &sample);
    }
    // A label in tab format sits at column 1 in both.
    let (line, _) = position_of(&source.text, "print *, 'tabbed'");
    assert_eq!(
        source.line_map.location(line, 1),
        Location::new(&original, position_of(&sample, "30\t").0, 1)
    );
    for needle in ["double precision scale", "3.0d0)", "included: a parameter"] {
        assert_maps_back(&source, needle, &include, SAMPLE_INCLUDE);
    }
}

#[test]
fn free_form_is_copied_and_includes_expanded() {
    let dir = tempfile::tempdir().unwrap();
    let main = "\
program p
  !$OpenAD independent(a, B)
  real :: a, b, c
  INCLUDE \"defs/consts.inc\" ! with a comment
  c = a * &
      b ! include 'not.h'
  print *, 'include \"not.h\"'
end program p
";
    let consts = "\
real, parameter :: two = 2.0
include 'more.inc'
";
    let more = "!$openad dependent(c)\nreal, parameter :: three = 3.0\n";
    let path = write(dir.path(), "p.f90", main);
    let consts_path = write(dir.path(), "defs/consts.inc", consts);
    let more_path = write(dir.path(), "defs/more.inc", more);
    let source = load(&path, None).unwrap();
    let expected = "\
program p
  !$OpenAD independent(a, B)
  real :: a, b, c
real, parameter :: two = 2.0
!$openad dependent(c)
real, parameter :: three = 3.0
  c = a * &
      b ! include 'not.h'
  print *, 'include \"not.h\"'
end program p
";
    assert_eq!(source.text, expected);
    assert_maps_back(&source, "two = 2.0", &consts_path, consts);
    assert_maps_back(&source, "three", &more_path, more);
    assert_maps_back(&source, "b ! include", &path, main);
    assert_maps_back(&source, "end program", &path, main);
    assert_eq!(
        source.line_map.files(),
        [path.clone(), consts_path, more_path.clone()]
    );
    let kinds: Vec<_> = source
        .pragmas
        .iter()
        .map(|p| (p.kind.clone(), p.names.clone()))
        .collect();
    assert_eq!(
        kinds,
        [
            (
                PragmaKind::Independent,
                vec!["a".to_string(), "b".to_string()]
            ),
            (PragmaKind::Dependent, vec!["c".to_string()]),
        ]
    );
    assert_eq!(source.pragmas[0].line, 2);
    assert_eq!(source.pragmas[0].location, Location::new(&path, 2, 3));
    assert_eq!(source.pragmas[1].line, 5);
    assert_eq!(source.pragmas[1].location, Location::new(&more_path, 1, 1));
}

#[test]
fn free_form_continuations_hide_include_lookalikes() {
    let dir = tempfile::tempdir().unwrap();
    let text = "x = 'abc&\ninclude 'q'\ny = 1 + &\n include 'r'\n";
    // Neither line is an include line: the first continues a string, the
    // second a statement. (Nonsense Fortran, but not ours to reject.)
    let path = write(dir.path(), "c.f90", text);
    let source = load(&path, None).unwrap();
    assert_eq!(source.text, text);
}

#[test]
fn include_cycles_and_missing_includes_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(
        dir.path(),
        "a.f",
        "      program a\n      include 'b.h'\n      end\n",
    );
    let b = write(
        dir.path(),
        "b.h",
        "c     b includes a again\n        include 'a.f'\n",
    );
    let diag = load(&a, None).unwrap_err();
    assert_eq!(diag.location, Location::new(&b, 2, 9));
    assert!(diag.message.contains("include cycle"), "{diag}");
    assert!(diag.notes[0].contains("a.f -> "), "{:?}", diag.notes);

    let itself = write(dir.path(), "self.f90", "! comment\ninclude 'self.f90'\n");
    let diag = load(&itself, None).unwrap_err();
    assert_eq!(diag.location, Location::new(&itself, 2, 1));
    assert!(diag.message.contains("include cycle"));

    let missing = write(
        dir.path(),
        "m.f",
        "      program m\n      INCLUDE 'nowhere.h'\n",
    );
    let diag = load(&missing, None).unwrap_err();
    assert_eq!(diag.location, Location::new(&missing, 2, 7));
    assert!(
        diag.message
            .starts_with("cannot open include file `nowhere.h`"),
        "{diag}"
    );

    // The same file included twice, not nested, is fine.
    let twice = write(dir.path(), "t.f90", "include 'x.inc'\ninclude 'x.inc'\n");
    write(dir.path(), "x.inc", "integer :: k\n");
    assert_eq!(
        load(&twice, None).unwrap().text,
        "integer :: k\ninteger :: k\n"
    );
}

#[test]
fn pragmas_in_fixed_form() {
    let dir = tempfile::tempdir().unwrap();
    let text = "      subroutine head(x, y, z)
c$openad independent(x)
C$OPENAD DEPENDENT(Y, z)
*$OpenAD XXX Template ad_template.f
!$openad independent(x)
      ! $openad not a pragma: blank after the comment character
      y = x ! $openad nor is a trailing comment
D     print *, 'a debug line, a comment as for most compilers'
c$openad dependent(w)                                                   0001
      end
";
    let path = write(dir.path(), "h.f", text);
    let source = load(&path, None).unwrap();
    let summary: Vec<_> = source
        .pragmas
        .iter()
        .map(|p| {
            (
                p.kind.clone(),
                p.names.clone(),
                p.line,
                p.location.line,
                p.location.column,
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            (PragmaKind::Independent, vec!["x".to_string()], 2, 2, 1),
            (
                PragmaKind::Dependent,
                vec!["y".to_string(), "z".to_string()],
                3,
                3,
                1
            ),
            (
                PragmaKind::Other("XXX Template ad_template.f".into()),
                vec![],
                4,
                4,
                1
            ),
            (PragmaKind::Independent, vec!["x".to_string()], 5, 5, 1),
            (PragmaKind::Dependent, vec!["w".to_string()], 9, 9, 1),
        ]
    );
    let lines: Vec<&str> = source.text.lines().collect();
    assert_eq!(lines[1], "!$openad independent(x)");
    assert_eq!(
        lines[8],
        "!$openad dependent(w)                                                   0001"
    );
    assert_eq!(lines[2], "!$OPENAD DEPENDENT(Y, z)");
    assert_eq!(lines[3], "!$OpenAD XXX Template ad_template.f");
    assert_eq!(
        lines[7],
        "!     print *, 'a debug line, a comment as for most compilers'"
    );
}

#[test]
fn bad_pragma_lists_are_errors_at_the_pragma() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        dir.path(),
        "e.f",
        "      program e\nc$openad INDEPENDENT()\n",
    );
    let diag = load(&path, None).unwrap_err();
    assert_eq!(
        diag.to_string(),
        format!(
            "{}:2:1: error: INDEPENDENT pragma names no variable",
            path.display()
        )
    );
    let path = write(dir.path(), "e.f90", "x = 1\n   !$openad dependent(y z)\n");
    let diag = load(&path, None).unwrap_err();
    assert_eq!(diag.location, Location::new(&path, 2, 25));
    assert!(diag.message.starts_with("malformed DEPENDENT pragma"));
}

#[test]
fn unreadable_files_and_unknown_forms() {
    let dir = tempfile::tempdir().unwrap();
    let nowhere = dir.path().join("missing.f90");
    let diag = load(&nowhere, None).unwrap_err();
    assert_eq!(diag.location, Location::new(&nowhere, 1, 1));
    assert!(diag.message.starts_with("cannot read file: "), "{diag}");
    assert!(diag.message.len() > "cannot read file: ".len());

    let directory = load(dir.path(), Some(Form::Free)).unwrap_err();
    assert!(directory.message.starts_with("cannot read file: "));

    let text = write(dir.path(), "prog.txt", "x = 1\n");
    let diag = load(&text, None).unwrap_err();
    assert_eq!(diag.location, Location::new(&text, 1, 1));
    assert!(diag.message.contains("source form"), "{diag}");
    assert_eq!(load(&text, Some(Form::Free)).unwrap().text, "x = 1\n");
    assert_eq!(
        load(&text, Some(Form::Fixed)).unwrap_err().message,
        "invalid character in the label field (columns 1-5) of a fixed-form line"
    );
}

#[test]
fn forms_by_name() {
    assert_eq!("fixed".parse::<Form>(), Ok(Form::Fixed));
    assert_eq!("FREE".parse::<Form>(), Ok(Form::Free));
    assert!("f90".parse::<Form>().is_err());
    assert_eq!(Form::Fixed.to_string(), "fixed");
    assert_eq!(Form::Free.to_string().parse::<Form>(), Ok(Form::Free));
}

#[test]
fn forms_from_extensions() {
    for fixed in ["a.f", "a.F", "a.for", "a.FOR", "a.ftn", "dir.x/a.f"] {
        assert_eq!(form_from_extension(fixed), Some(Form::Fixed), "{fixed}");
    }
    for free in ["a.f90", "a.F90", "a.f95", "a.F95", "a.f03", "a.f08"] {
        assert_eq!(form_from_extension(free), Some(Form::Free), "{free}");
    }
    for unknown in ["a.c", "a", "a.f77x", ".f90x", "f90"] {
        assert_eq!(form_from_extension(unknown), None, "{unknown}");
    }
}

#[test]
fn fixed_form_errors_name_the_place() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "     &x = 1\n",
            1,
            6,
            "continuation line with no statement to continue",
        ),
        (
            "      program p\n      x = 1\n   ab y = 2\n",
            3,
            4,
            "invalid character in the label field",
        ),
        (
            "      print *, 'open\n      end\n",
            1,
            16,
            "unterminated character constant",
        ),
        (
            "      print *, 'open\nc     comment\n",
            1,
            16,
            "unterminated character constant",
        ),
        (
            "#ifdef X\n      end\n",
            1,
            1,
            "preprocessor directive `#ifdef`",
        ),
        ("   10 format(1x, 5Hhello)\n", 1, 18, "Hollerith"),
        (
            "      include 'x.h'\n     &y\n",
            2,
            6,
            "continuation line with no statement",
        ),
    ];
    write(dir.path(), "x.h", "      integer k\n");
    for (index, (text, line, column, message)) in cases.into_iter().enumerate() {
        let path = write(dir.path(), &format!("case{index}.f"), text);
        let diag = load(&path, None).unwrap_err();
        assert_eq!(
            (diag.location.line, diag.location.column),
            (line, column),
            "{text:?}: {diag}"
        );
        assert_eq!(diag.location.file, path);
        assert!(diag.message.contains(message), "{text:?}: {diag}");
    }
}

#[test]
fn line_markers_redirect_the_line_map() {
    let dir = tempfile::tempdir().unwrap();
    let text = "# 1 \"orig.F90\"\nprogram p\n# 10 \"orig.F90\"\n  x = 1\n#line 20\n  y = 2\n";
    let path = write(dir.path(), "pre.f90", text);
    let source = load(&path, None).unwrap();
    assert_eq!(source.text, "\nprogram p\n\n  x = 1\n\n  y = 2\n");
    assert_eq!(
        source.line_map.location(2, 1),
        Location::new("orig.F90", 1, 1)
    );
    assert_eq!(
        source.line_map.location(4, 3),
        Location::new("orig.F90", 10, 3)
    );
    assert_eq!(
        source.line_map.location(6, 3),
        Location::new("orig.F90", 20, 3)
    );
    assert_eq!(source.line_map.location(1, 1), Location::new(&path, 1, 1));
}

#[test]
fn crlf_bom_and_invalid_utf8() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("w.f");
    let mut bytes = b"\xef\xbb\xbf      x = 1\r\nc caf\xe9\r\n      y = 2\r\n".to_vec();
    fs::write(&path, &bytes).unwrap();
    let source = load(&path, None).unwrap();
    assert_eq!(source.text, "      x = 1\n! caf\u{fffd}\n      y = 2\n");
    assert_eq!(source.line_map.location(1, 7), Location::new(&path, 1, 10));
    assert_eq!(source.warnings.len(), 1);
    assert_eq!(source.warnings[0].location, Location::new(&path, 2, 6));
    bytes.truncate(3);
    fs::write(&path, &bytes).unwrap();
    assert_eq!(load(&path, None).unwrap().text, "");
}

#[test]
fn empty_and_blank_files() {
    let dir = tempfile::tempdir().unwrap();
    let empty = write(dir.path(), "e.f90", "");
    let source = load(&empty, None).unwrap();
    assert_eq!(source.text, "");
    assert_eq!(source.line_map.location(1, 1), Location::new(&empty, 1, 1));
    let blank = write(dir.path(), "b.f", "\n   \n\t\n");
    assert_eq!(load(&blank, None).unwrap().text, "\n\n\n");
    let no_newline = write(dir.path(), "n.f90", "end");
    assert_eq!(load(&no_newline, None).unwrap().text, "end\n");
}

/// Fortran-flavoured text: the characters normalisation cares about.
fn fortranish() -> impl Strategy<Value = Vec<u8>> {
    let pieces = prop_oneof![
        Just(b"      ".to_vec()),
        Just(b"     &".to_vec()),
        Just(b"\t".to_vec()),
        Just(b"\t1".to_vec()),
        Just(b"\n".to_vec()),
        Just(b"\r\n".to_vec()),
        Just(b"c$openad independent(".to_vec()),
        Just(b"!$openad dependent(x, y)\n".to_vec()),
        Just(b"include 'loop.inc'\n".to_vec()),
        Just(b"include \"nope\"\n".to_vec()),
        Just(b"# 3 \"x\"\n".to_vec()),
        Just(b"format(".to_vec()),
        Just("é".as_bytes().to_vec()),
        "[ -~]{0,12}".prop_map(String::into_bytes),
        proptest::collection::vec(any::<u8>(), 0..6),
        "[0-9'\"!&*cC() ]{1,4}".prop_map(String::into_bytes),
    ];
    proptest::collection::vec(pieces, 0..40).prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn normalisation_never_panics(bytes in fortranish(), fixed in any::<bool>()) {
        let dir = tempfile::tempdir().unwrap();
        let form = if fixed { Form::Fixed } else { Form::Free };
        // An include file that includes whatever was generated, so
        // includes and cycles get exercised too.
        fs::write(dir.path().join("loop.inc"), &bytes).unwrap();
        let path = dir.path().join("fuzz.src");
        fs::write(&path, &bytes).unwrap();
        if let Ok(source) = load(&path, Some(form)) {
            let lines = source.text.lines().count();
            prop_assert_eq!(lines, source.line_map.len());
            for line in 0..=lines + 1 {
                let location = source.line_map.location(line, 200);
                prop_assert!(location.line >= 1 && location.column >= 1);
            }
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        let path = Path::new("/nonexistent-dir/arbitrary.f");
        let _ = normalize_bytes(path, &bytes, Form::Fixed);
        let _ = normalize_bytes(path, &bytes, Form::Free);
    }
}

/// First syntax error tree-sitter-fortran finds in `text`, as 1-based line
/// and byte column.
fn first_parse_error(text: &str) -> Option<(usize, usize)> {
    let mut parser = tree_sitter::Parser::new();
    parser
        .set_language(&tree_sitter_fortran::LANGUAGE.into())
        .unwrap();
    let tree = parser.parse(text, None).unwrap();
    let mut cursor = tree.walk();
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        if node.is_error() || node.is_missing() {
            let point = node.start_position();
            return Some((point.row + 1, point.column + 1));
        }
        if node.has_error() {
            stack.extend(node.children(&mut cursor));
        }
    }
    None
}

#[test]
fn normalised_fixed_form_parses_with_tree_sitter() {
    let dir = tempfile::tempdir().unwrap();
    let original = write(dir.path(), "sample.f", &fixed_sample());
    write(dir.path(), "sample.h", SAMPLE_INCLUDE);
    let source = load(&original, None).unwrap();
    assert_eq!(
        first_parse_error("program p\n  x = = 1\nend program p\n").map(|(line, _)| line),
        Some(2),
        "the check must be able to fail"
    );
    if let Some((line, column)) = first_parse_error(&source.text) {
        panic!(
            "tree-sitter error at {line}:{column} ({}):\n{}",
            source.line_map.location(line, column),
            source.text
        );
    }
}

/// A syntax error tree-sitter finds in the normalised text maps back to
/// the planted token: through tab format, an include, and a continuation
/// with a comment line in between.
#[test]
fn planted_parse_errors_map_back_to_the_original() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&str, &str, &str); 3] = [
        (
            "      subroutine s(x)\n      double precision x\n\tx = x +\n\t1  2.0d0 * )\n      end\n",
            "",
            "* )",
        ),
        (
            "      subroutine s(x)\n      include 'bad.h'\n      end\n",
            "c     bad include\n      double precision x\n      x = x + 2.0d0 * )\n",
            "* )",
        ),
        (
            "      subroutine s(x)\n      double precision x\n      x = 1.0d0 +\nc     between\n     &    3.0d0 * )\n      end\n",
            "",
            "* )",
        ),
    ];
    for (index, (main, include, planted)) in cases.into_iter().enumerate() {
        let path = write(dir.path(), &format!("case{index}.f"), main);
        let include_path = write(dir.path(), "bad.h", include);
        let source = load(&path, None).unwrap();
        let (line, column) = first_parse_error(&source.text).expect("a syntax error");
        let location = source.line_map.location(line, column);
        let (file, original) = if main.contains(planted) {
            (path, main)
        } else {
            (include_path, include)
        };
        let planted_at = position_of(original, planted);
        assert_eq!(
            location,
            Location::new(file, planted_at.0, planted_at.1),
            "{}",
            source.text
        );
    }
}
