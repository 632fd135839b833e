//! Reading the two intrinsic catalogues.

use super::cursor::{Cursor, Element, Ns, Result};
use super::expression::expression_body;
use crate::model::*;
use crate::names::*;

pub(crate) fn inlinable(c: &mut Cursor, el: &Element) -> Result<InlinableIntrinsicDefinitions> {
    if !el.is(Ns::InlinableIntrinsics, "InlinableIntrinsicDefinitions") {
        return Err(c.wrong_root(el, "xaifii:InlinableIntrinsicDefinitions"));
    }
    let mut defs = InlinableIntrinsicDefinitions::default();
    let mut language = None;
    for a in c.attributes(el) {
        let a = a?;
        match a.name {
            b"language" => language = Some(c.enumerated_string(&a, LANGUAGES)?),
            _ => return Err(c.unknown_attribute(el, &a)),
        }
    }
    defs.language = c.required(language, el, "language")?;
    while let Some(child) = c.next_child(el)? {
        if !child.is(Ns::InlinableIntrinsics, "InlinableIntrinsic") {
            return Err(c.unexpected(&child, el));
        }
        defs.intrinsics.push(inlinable_intrinsic(c, &child)?);
    }
    Ok(defs)
}

fn inlinable_intrinsic(c: &mut Cursor, el: &Element) -> Result<InlinableIntrinsic> {
    let mut i = InlinableIntrinsic {
        shape_change: "no_change".into(),
        ..Default::default()
    };
    let (mut name, mut nr) = (None, None);
    for a in c.attributes(el) {
        let a = a?;
        match a.name {
            b"name" => name = Some(c.string(&a)?),
            b"nr_arguments" => nr = Some(c.positive(&a)?),
            b"return_type" => i.return_type = c.enumeration(&a, SYMBOL_TYPES)?,
            b"nonSmooth" => i.non_smooth = c.boolean(&a)?,
            b"shapeChange" => i.shape_change = c.enumerated_string(&a, SHAPE_CHANGES)?,
            _ => return Err(c.unknown_attribute(el, &a)),
        }
    }
    i.name = c.required(name, el, "name")?;
    i.nr_arguments = c.required(nr, el, "nr_arguments")?;
    let mut have_function = false;
    while let Some(child) = c.next_child(el)? {
        match (child.ns, child.local()) {
            (Ns::InlinableIntrinsics, b"Function") if !have_function => {
                i.function = function(c, &child)?;
                have_function = true;
            }
            (Ns::InlinableIntrinsics, b"Partial") if have_function => {
                i.partials.push(partial(c, &child)?)
            }
            _ => return Err(c.unexpected(&child, el)),
        }
    }
    if !have_function {
        return Err(c.error_at(el.offset, "'InlinableIntrinsic' needs a 'Function'"));
    }
    Ok(i)
}

fn function(c: &mut Cursor, el: &Element) -> Result<IntrinsicFunction> {
    let mut f = IntrinsicFunction {
        type_: "user_defined".into(),
        ..Default::default()
    };
    for a in c.attributes(el) {
        let a = a?;
        match a.name {
            b"type" => f.type_ = c.enumerated_string(&a, FUNCTION_TYPES)?,
            b"builtin_name" => f.builtin_name = Some(c.string(&a)?),
            _ => return Err(c.unknown_attribute(el, &a)),
        }
    }
    f.expression = expression_body(c, el, true)?;
    Ok(f)
}

fn partial(c: &mut Cursor, el: &Element) -> Result<IntrinsicPartial> {
    let mut p = IntrinsicPartial {
        partial_type: "nonlinear".into(),
        ..Default::default()
    };
    let mut id = None;
    for a in c.attributes(el) {
        let a = a?;
        match a.name {
            b"partial_id" => id = Some(c.positive(&a)?),
            b"partial_type" => p.partial_type = c.enumerated_string(&a, PARTIAL_TYPES)?,
            b"nonValueInquiry" => p.non_value_inquiry = c.boolean(&a)?,
            _ => return Err(c.unknown_attribute(el, &a)),
        }
    }
    p.partial_id = c.required(id, el, "partial_id")?;
    p.expression = expression_body(c, el, true)?;
    Ok(p)
}

pub(crate) fn non_inlinable(
    c: &mut Cursor,
    el: &Element,
) -> Result<NonInlinableIntrinsicDefinitions> {
    if !el.is(
        Ns::NonInlinableIntrinsics,
        "NonInlinableIntrinsicDefinitions",
    ) {
        return Err(c.wrong_root(el, "xaifnii:NonInlinableIntrinsicDefinitions"));
    }
    if let Some(a) = c.attributes(el).next() {
        let a = a?;
        return Err(c.unknown_attribute(el, &a));
    }
    let mut defs = NonInlinableIntrinsicDefinitions::default();
    while let Some(child) = c.next_child(el)? {
        let explicit = match (child.ns, child.local()) {
            (Ns::NonInlinableIntrinsics, b"ExplicitJacobian") => true,
            (Ns::NonInlinableIntrinsics, b"DirectAction") => false,
            _ => return Err(c.unexpected(&child, el)),
        };
        let (mut name, mut jacobian, mut action) = (None, None, None);
        let (mut non_smooth, mut return_type) = (false, SymbolType::Real);
        for a in c.attributes(&child) {
            let a = a?;
            match a.name {
                b"name" => name = Some(c.string(&a)?),
                b"nonSmooth" => non_smooth = c.boolean(&a)?,
                b"jacobian" if explicit => jacobian = Some(c.string(&a)?),
                b"return_type" if explicit => return_type = c.enumeration(&a, SYMBOL_TYPES)?,
                b"derivAction" if !explicit => action = Some(c.string(&a)?),
                _ => return Err(c.unknown_attribute(&child, &a)),
            }
        }
        let name = c.required(name, &child, "name")?;
        if explicit {
            let jacobian = c.required(jacobian, &child, "jacobian")?;
            let mut partials = Vec::new();
            while let Some(p) = c.next_child(&child)? {
                if !p.is(Ns::NonInlinableIntrinsics, "Partial") {
                    return Err(c.unexpected(&p, &child));
                }
                let (mut dep, mut indep, mut partial) = (None, None, None);
                for a in c.attributes(&p) {
                    let a = a?;
                    match a.name {
                        b"dep" => dep = Some(c.positive(&a)?),
                        b"indep" => indep = Some(c.positive(&a)?),
                        b"partial" => partial = Some(c.positive(&a)?),
                        _ => return Err(c.unknown_attribute(&p, &a)),
                    }
                }
                partials.push(ExplicitPartial {
                    dep: c.required(dep, &p, "dep")?,
                    indep: c.required(indep, &p, "indep")?,
                    partial: c.required(partial, &p, "partial")?,
                });
                c.expect_no_children(&p)?;
            }
            defs.definitions
                .push(NonInlinableIntrinsic::ExplicitJacobian {
                    name,
                    non_smooth,
                    jacobian,
                    return_type,
                    partials,
                });
        } else {
            let deriv_action = c.required(action, &child, "derivAction")?;
            c.expect_no_children(&child)?;
            defs.definitions.push(NonInlinableIntrinsic::DirectAction {
                name,
                non_smooth,
                deriv_action,
            });
        }
    }
    Ok(defs)
}
