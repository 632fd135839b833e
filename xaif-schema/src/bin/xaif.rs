//! `xaif`: validate, reformat and draw XAIF files.

use clap::{Parser, Subcommand, ValueEnum};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use xaif_schema::read;
use xaif_schema::validate::{SchemaKind, Validator};
use xaif_schema::write;
use xaif_schema::XaifError;

#[derive(Parser)]
#[command(
    name = "xaif",
    version,
    about = "Validate, reformat and draw XAIF files",
    long_about = "Validate, reformat and draw XAIF files (the XML format the OpenAD \
                  stages exchange: fortran2xaif -> xaif-booster -> xaif2fortran).\n\n\
                  Errors are printed as FILE:LINE:COLUMN: error: MESSAGE. Exit status: \
                  0 on success, 1 if a file is rejected, 2 on a usage error."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check files against the XAIF schema and the format's graph rules
    ///
    /// Each file is read by the XAIF reader, which checks well-formedness,
    /// element and attribute names and types, unique vertex ids and that
    /// every edge joins vertices of its own graph; then it is validated
    /// with libxml2 against the XSD files built into this program.
    /// The schema is chosen from the content (intrinsic catalogues by their
    /// root element, booster output by its own elements, else input) unless
    /// --schema is given.
    Validate {
        /// Schema to check against instead of guessing from the content
        #[arg(long, value_enum)]
        schema: Option<SchemaArg>,
        /// Files to check
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Rewrite a file in canonical form
    ///
    /// Canonical form: UTF-8, two-space indentation, `xaif:` prefixes,
    /// every attribute written out (defaults included), vertices before
    /// edges. Formatting a formatted file changes nothing.
    Fmt {
        /// Input XAIF file
        input: PathBuf,
        /// Output file (written via a temporary file and a rename);
        /// standard output if absent
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
    /// Draw a call graph document with Graphviz
    ///
    /// Writes a DOT graph: the call graph, and every control flow graph as
    /// a cluster whose basic blocks list their statements. Render with
    /// e.g. `dot -Tsvg`.
    Dot {
        /// Input XAIF file (a call graph)
        input: PathBuf,
        /// Output file; standard output if absent
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// Draw only the control flow graph of this subroutine (its
        /// symbol_id)
        #[arg(long, value_name = "NAME")]
        subroutine: Option<String>,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum SchemaArg {
    /// xaif.xsd: front-end output
    Input,
    /// xaif_output.xsd: booster output
    Output,
    /// xaif_inlinable_intrinsics.xsd
    Inlinable,
    /// xaif_noninlinable_intrinsics.xsd
    Noninlinable,
}

impl From<SchemaArg> for SchemaKind {
    fn from(s: SchemaArg) -> SchemaKind {
        match s {
            SchemaArg::Input => SchemaKind::Input,
            SchemaArg::Output => SchemaKind::Output,
            SchemaArg::Inlinable => SchemaKind::Inlinable,
            SchemaArg::Noninlinable => SchemaKind::NonInlinable,
        }
    }
}

fn report(e: &XaifError) {
    let location = match (e.line, e.column) {
        (0, _) => e.file.clone(),
        (l, 0) => format!("{}:{l}", e.file),
        (l, c) => format!("{}:{l}:{c}", e.file),
    };
    eprintln!("{location}: error: {}", e.message);
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Validate { schema, files } => validate(schema.map(SchemaKind::from), &files),
        Command::Fmt { input, output } => fmt(&input, output.as_deref()),
        Command::Dot {
            input,
            output,
            subroutine,
        } => dot(&input, output.as_deref(), subroutine.as_deref()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(errors) => {
            for e in &errors {
                report(e);
            }
            ExitCode::from(1)
        }
    }
}

fn load(path: &Path) -> Result<Vec<u8>, Vec<XaifError>> {
    std::fs::read(path).map_err(|e| {
        vec![XaifError::without_position(
            &path.display().to_string(),
            format!("cannot read file: {e}"),
        )]
    })
}

/// Reads a document of the given kind: schema kinds only tell which root
/// to expect; the reader does the checking.
fn read_document(text: &str, name: &str, kind: SchemaKind) -> Result<Document, XaifError> {
    Ok(match kind {
        SchemaKind::Input | SchemaKind::Output => {
            Document::CallGraph(read::read_call_graph(text, name)?)
        }
        SchemaKind::Inlinable => Document::Inlinable(read::read_inlinable_intrinsics(text, name)?),
        SchemaKind::NonInlinable => {
            Document::NonInlinable(read::read_noninlinable_intrinsics(text, name)?)
        }
    })
}

enum Document {
    CallGraph(xaif_schema::CallGraph),
    Inlinable(xaif_schema::InlinableIntrinsicDefinitions),
    NonInlinable(xaif_schema::NonInlinableIntrinsicDefinitions),
}

fn validate(schema: Option<SchemaKind>, files: &[PathBuf]) -> Result<(), Vec<XaifError>> {
    let mut validator = Validator::new().map_err(|e| {
        vec![XaifError::without_position(
            "xaif",
            format!("cannot set up the schemas: {e}"),
        )]
    })?;
    let mut errors = Vec::new();
    for path in files {
        let name = path.display().to_string();
        let bytes = match load(path) {
            Ok(b) => b,
            Err(e) => {
                errors.extend(e);
                continue;
            }
        };
        // The reader first: it pinpoints line and column and checks the
        // graph rules XSD cannot express; then the schema (unless given,
        // chosen by the root element and, for call graphs, by whether the
        // model has booster output elements).
        let read = read::decode(&bytes, &name).and_then(|text| {
            let kind = schema.unwrap_or_else(|| SchemaKind::of_root(&bytes));
            read_document(&text, &name, kind)
        });
        let document = match read {
            Ok(d) => d,
            Err(e) => {
                errors.push(e);
                continue;
            }
        };
        let kind = schema.unwrap_or(match &document {
            Document::CallGraph(cg) => SchemaKind::of_call_graph(cg),
            Document::Inlinable(_) => SchemaKind::Inlinable,
            Document::NonInlinable(_) => SchemaKind::NonInlinable,
        });
        drop(document);
        if let Err(e) = validator.validate_bytes(&bytes, &name, kind) {
            errors.extend(e);
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

fn fmt(input: &Path, output: Option<&Path>) -> Result<(), Vec<XaifError>> {
    let name = input.display().to_string();
    // The input text is dropped before the output is built: only one of
    // the two is in memory with the model.
    let document = {
        let bytes = load(input)?;
        let text = read::decode(&bytes, &name).map_err(|e| vec![e])?;
        let kind = SchemaKind::of_root(&bytes);
        read_document(&text, &name, kind).map_err(|e| vec![e])?
    };
    let out = match &document {
        Document::CallGraph(cg) => write::write_call_graph(cg),
        Document::Inlinable(d) => write::write_inlinable_intrinsics(d),
        Document::NonInlinable(d) => write::write_noninlinable_intrinsics(d),
    };
    // The process ends next: freeing a large model piece by piece would
    // cost more than reading it.
    std::mem::forget(document);
    emit(output, &out)
}

fn dot(
    input: &Path,
    output: Option<&Path>,
    subroutine: Option<&str>,
) -> Result<(), Vec<XaifError>> {
    let name = input.display().to_string();
    let bytes = load(input)?;
    let text = read::decode(&bytes, &name).map_err(|e| vec![e])?;
    let cg = read::read_call_graph(&text, &name).map_err(|e| vec![e])?;
    let graph = match subroutine {
        None => xaif_schema::dot::document_dot(&cg),
        Some(wanted) => {
            let found = cg.vertices.iter().find_map(|v| match v {
                xaif_schema::CallGraphVertex::ControlFlowGraph(g) if g.symbol_id == wanted => {
                    Some(g)
                }
                _ => None,
            });
            match found {
                Some(g) => xaif_schema::dot::control_flow_dot(g),
                None => {
                    return Err(vec![XaifError::without_position(
                        &name,
                        format!("no control flow graph for subroutine '{wanted}'"),
                    )])
                }
            }
        }
    };
    emit(output, &graph)
}

fn emit(output: Option<&Path>, text: &str) -> Result<(), Vec<XaifError>> {
    match output {
        Some(path) => write::write_file_atomically(path, text.as_bytes()).map_err(|e| {
            vec![XaifError::without_position(
                &path.display().to_string(),
                format!("cannot write file: {e}"),
            )]
        }),
        None => {
            use std::io::Write;
            let mut stdout = std::io::stdout().lock();
            stdout
                .write_all(text.as_bytes())
                .and_then(|()| stdout.flush())
                .map_err(|e| {
                    vec![XaifError::without_position(
                        "<stdout>",
                        format!("cannot write: {e}"),
                    )]
                })
        }
    }
}
