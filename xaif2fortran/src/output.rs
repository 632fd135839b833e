//! Writing the results: every file goes to a temporary name first and is
//! renamed only when all of them are written, so a failure leaves nothing
//! partial behind.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// Writes `(file name, text)` pairs into `dir` (created if missing).
pub fn write_files(dir: &Path, files: &[(String, String)]) -> io::Result<Vec<PathBuf>> {
    fs::create_dir_all(dir)?;
    let pid = std::process::id();
    let mut temps: Vec<(PathBuf, PathBuf)> = Vec::new();
    let result = (|| {
        for (name, text) in files {
            let tmp = dir.join(format!(".{name}.tmp{pid}"));
            temps.push((tmp.clone(), dir.join(name)));
            fs::write(&tmp, text)?;
        }
        for (tmp, dest) in &temps {
            fs::rename(tmp, dest)?;
        }
        Ok(())
    })();
    if let Err(e) = result {
        for (tmp, _) in &temps {
            let _ = fs::remove_file(tmp);
        }
        return Err(e);
    }
    Ok(temps.into_iter().map(|(_, d)| d).collect())
}

/// Writes one file at `path` through a temporary name next to it.
pub fn write_file(path: &Path, text: &str) -> io::Result<()> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.tmp{}", std::process::id()));
    fs::write(&tmp, text)
        .and_then(|_| fs::rename(&tmp, path))
        .inspect_err(|_| {
            let _ = fs::remove_file(&tmp);
        })
}
