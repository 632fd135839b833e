//! Writing the two intrinsic catalogues.

use super::elements::expression_content;
use super::emitter::Emitter;
use crate::model::*;
use crate::names::*;

const II: &str = "xaifii";
const NII: &str = "xaifnii";

pub(crate) fn inlinable(e: &mut Emitter, d: &InlinableIntrinsicDefinitions) {
    e.open(II, "InlinableIntrinsicDefinitions");
    e.attr("xmlns:xaifii", XAIF_II_NS);
    e.attr("xmlns:xaif", XAIF_NS);
    e.attr("language", &d.language);
    if d.intrinsics.is_empty() {
        e.empty();
        return;
    }
    e.children();
    for i in &d.intrinsics {
        e.open(II, "InlinableIntrinsic");
        e.attr("name", &i.name);
        e.attr_u64("nr_arguments", i.nr_arguments);
        e.attr("return_type", name_of(SYMBOL_TYPES, i.return_type));
        e.attr_bool("nonSmooth", i.non_smooth);
        e.attr("shapeChange", &i.shape_change);
        e.children();
        e.open(II, "Function");
        e.attr("type", &i.function.type_);
        if let Some(b) = &i.function.builtin_name {
            e.attr("builtin_name", b);
        }
        expression_content(e, II, "Function", &i.function.expression);
        for p in &i.partials {
            e.open(II, "Partial");
            e.attr_u64("partial_id", p.partial_id);
            e.attr("partial_type", &p.partial_type);
            e.attr_bool("nonValueInquiry", p.non_value_inquiry);
            expression_content(e, II, "Partial", &p.expression);
        }
        e.close(II, "InlinableIntrinsic");
    }
    e.close(II, "InlinableIntrinsicDefinitions");
}

pub(crate) fn non_inlinable(e: &mut Emitter, d: &NonInlinableIntrinsicDefinitions) {
    e.open(NII, "NonInlinableIntrinsicDefinitions");
    e.attr("xmlns:xaifnii", XAIF_NII_NS);
    e.attr("xmlns:xaif", XAIF_NS);
    if d.definitions.is_empty() {
        e.empty();
        return;
    }
    e.children();
    for def in &d.definitions {
        match def {
            NonInlinableIntrinsic::ExplicitJacobian {
                name,
                non_smooth,
                jacobian,
                return_type,
                partials,
            } => {
                e.open(NII, "ExplicitJacobian");
                e.attr("name", name);
                e.attr_bool("nonSmooth", *non_smooth);
                e.attr("jacobian", jacobian);
                e.attr("return_type", name_of(SYMBOL_TYPES, *return_type));
                if partials.is_empty() {
                    e.empty();
                    continue;
                }
                e.children();
                for p in partials {
                    e.open(NII, "Partial");
                    e.attr_u64("dep", p.dep);
                    e.attr_u64("indep", p.indep);
                    e.attr_u64("partial", p.partial);
                    e.empty();
                }
                e.close(NII, "ExplicitJacobian");
            }
            NonInlinableIntrinsic::DirectAction {
                name,
                non_smooth,
                deriv_action,
            } => {
                e.open(NII, "DirectAction");
                e.attr("name", name);
                e.attr_bool("nonSmooth", *non_smooth);
                e.attr("derivAction", deriv_action);
                e.empty();
            }
        }
    }
    e.close(NII, "NonInlinableIntrinsicDefinitions");
}
