//! The kinds of elimination step a chain can take.

use std::fmt;
use std::str::FromStr;

use super::work::EliminationError;

/// The kind of elimination step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Method {
    Vertex,
    /// Front and back edge eliminations.
    Edge,
    Face,
}

impl FromStr for Method {
    type Err = EliminationError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "vertex" | "v" => Ok(Method::Vertex),
            "edge" | "e" => Ok(Method::Edge),
            "face" => Ok(Method::Face),
            other => Err(EliminationError::UnknownMethod(other.to_string())),
        }
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Method::Vertex => "vertex",
            Method::Edge => "edge",
            Method::Face => "face",
        })
    }
}
