// The variants of `tapir compare` as train flags: a spec such as
// "pos=alibi,arch:FILE" becomes the flags it stands for, and those flags are
// applied to a base config the way `tapir train` reads them. An option
// helper of the commands in tools/; lab/compare.h takes apply_variant as its
// ApplyVariant.
#pragma once
#include <string>

#include "lab/compare.h"
#include "optim/train_config.h"

namespace tapir {

// Parses a variant spec: comma-separated key=value pairs (any `tapir train`
// option, without the dashes; a flag may stand alone or take =true/false),
// "arch:FILE" as a shorthand for arch=FILE, or "baseline" for no change.
// "pool=NAME" is no option: the variant's runs are also pooled with the
// other variants of NAME into one row (lab/compare.h: pool_named).
Variant parse_variant(const std::string& spec);
// The base config with the variant's options applied on top, as if they had
// been given to `tapir train` after the base's own options.
TrainConfig apply_variant(const TrainConfig& base, const Variant& variant);

}  // namespace tapir
