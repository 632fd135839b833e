//! Argument checkpoints for the joint template: `!$placeholder arg_store`
//! pushes the values of the subroutine's arguments on the checkpoint
//! stacks, `!$placeholder arg_restore` pops them back (reverse order).
//! Active arguments are checkpointed by value (`x%v`): their adjoints are
//! the reverse sweep's business.

use xaif_schema::{ArgumentSymbolReference, Intent, SymbolType};

use crate::canon::{join_statement, CanonItem};

use crate::codegen::UnitGen;
use crate::error::Result;

impl UnitGen<'_, '_> {
    /// Emits checkpoint stores (or restores) for `args`.
    pub fn argument_checkpoints(
        &mut self,
        args: &[ArgumentSymbolReference],
        cfg_scope: u64,
        store: bool,
    ) -> Result<()> {
        let mut sorted: Vec<&ArgumentSymbolReference> = args.iter().collect();
        sorted.sort_by_key(|a| a.position);
        if !store {
            sorted.reverse();
        }
        let index = self.env.index;
        for a in sorted {
            let Some(sym) = index
                .symbol(a.scope_id, &a.symbol_id)
                .or_else(|| index.symbol(cfg_scope, &a.symbol_id))
            else {
                return Err(self.env.xaif.error(
                    &format!("symbol_id=\"{}\"", a.symbol_id),
                    format!("argument '{}' has no symbol", a.symbol_id),
                ));
            };
            // A passive argument the subroutine only reads need not be
            // restored, and must not be where it is declared intent(in) or
            // the actual is a constant.
            if !sym.active && (a.intent == Intent::In || self.declared_intent_in(&a.symbol_id)) {
                continue;
            }
            // Assumed-size arrays have no size to store.
            if sym.shape.rank() > 0 && self.declared_assumed_size(&a.symbol_id) {
                continue;
            }
            let kind = match sym.type_ {
                SymbolType::Real => "real",
                SymbolType::Integer => "integer",
                SymbolType::Bool => "bool",
                // Characters and the like carry nothing the sweeps change.
                _ => continue,
            };
            let shape = if sym.shape.rank() > 0 {
                "array"
            } else {
                "scalar"
            };
            let op = if store { "store" } else { "restore" };
            let routine = format!("cp_{op}_{kind}_{shape}");
            let name = sym.symbol_id.to_ascii_lowercase();
            let text = if sym.active {
                format!("{name}%v")
            } else {
                name
            };
            // An absent optional argument has nothing to store.
            let optional = self
                .declaration_text(&a.symbol_id)
                .is_some_and(|d| d.split("::").next().unwrap_or("").contains("optional"));
            match self.inline.expand(&routine, &[text]) {
                Some(Ok(lines)) => {
                    if optional {
                        self.line(format!(
                            "if (present({})) then",
                            a.symbol_id.to_ascii_lowercase()
                        ));
                        self.indent += 1;
                    }
                    for l in lines {
                        self.line(l);
                    }
                    if optional {
                        self.indent -= 1;
                        self.line("end if");
                    }
                }
                _ => {
                    return Err(self.env.xaif.error(
                        &format!("symbol_id=\"{}\"", a.symbol_id),
                        format!(
                            "no inline definition '{routine}' for argument '{}'",
                            a.symbol_id
                        ),
                    ))
                }
            }
        }
        Ok(())
    }

    /// The declaration of `name` in this unit, lower case, joined.
    fn declaration_text(&self, name: &str) -> Option<String> {
        let name = name.to_ascii_lowercase();
        self.canon.items.iter().find_map(|i| match i {
            CanonItem::Decl {
                unit,
                name: n,
                lines,
            } if *unit == self.unit && *n == name => {
                let texts: Vec<&str> = lines
                    .iter()
                    .map(|&l| self.canon.lines[l].as_str())
                    .collect();
                Some(join_statement(&texts).to_ascii_lowercase())
            }
            _ => None,
        })
    }

    fn declared_intent_in(&self, name: &str) -> bool {
        self.declaration_text(name)
            .is_some_and(|d| d.replace(' ', "").contains("intent(in)"))
    }

    fn declared_assumed_size(&self, name: &str) -> bool {
        self.declaration_text(name).is_some_and(|d| {
            let d = d.replace(' ', "");
            d.contains("(*)") || d.contains(",*)") || d.contains(":*)")
        })
    }
}
