//! Argument checkpoints for the joint template: `!$placeholder arg_store`
//! pushes the values of the subroutine's arguments on the checkpoint
//! stacks, `!$placeholder arg_restore` pops them back (reverse order).
//! Active arguments are checkpointed by value (`x%v`): their adjoints are
//! the reverse sweep's business.

use xaif_schema::{ArgumentSymbolReference, SymbolType};

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
            match self.inline.expand(&routine, &[text]) {
                Some(Ok(lines)) => {
                    for l in lines {
                        self.line(l);
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
}
