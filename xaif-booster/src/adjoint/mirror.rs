//! Mirror markers: an opaque statement (`Marker`) runs in the forward
//! sweep as written, and the reverse sweep gets, at the mirror position
//! (where the reverse pieces of the block put the statement's own reverse
//! piece), a `Marker` with the same `statement_id` and the annotation
//! `mirror:` + the original annotation. The booster does not know what
//! the statement does; the back end decides what its mirror runs (for an
//! `allocate` it deallocates, for a `deallocate` it re-allocates with the
//! bounds the forward sweep taped; most statements mirror to nothing).
//! Because the mirror sits exactly where the statement's reverse piece
//! goes, integer pushes the back end emits at the statement are popped in
//! LIFO order with the booster's own pushes.

use xaif_schema::model::{BasicBlockElement, Marker};

/// Prefix of the annotation of a mirror marker.
pub const MIRROR_PREFIX: &str = "mirror:";

/// The reverse piece of an opaque statement: its mirror marker.
pub fn mirror_marker(m: &Marker) -> BasicBlockElement {
    BasicBlockElement::Marker(Marker {
        statement_id: m.statement_id.clone(),
        annotation: format!("{MIRROR_PREFIX}{}", m.annotation).into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mirror_keeps_the_statement_and_prefixes_the_annotation() {
        let m = Marker {
            statement_id: "s7".into(),
            annotation: "canon:12".into(),
        };
        let BasicBlockElement::Marker(r) = mirror_marker(&m) else {
            panic!("not a marker");
        };
        assert_eq!(r.statement_id, "s7");
        assert_eq!(r.annotation, "mirror:canon:12");
    }
}
