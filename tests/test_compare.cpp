// Variants of `tapir compare` (tools/variant_options.h): specs become train options
// applied over the base configuration, flags included, and a bad spec fails
// with a message naming it.
#include <doctest/doctest.h>

#include "engine/error.h"
#include "lab/compare.h"
#include "tools/variant_options.h"

using namespace tapir;

TEST_CASE("a variant's items are train options over the base configuration") {
  TrainConfig base;
  base.model.width = 48;
  base.schedule.base_lr = 3e-3;

  const TrainConfig same = apply_variant(base, parse_variant("baseline"));
  CHECK(same.model.width == 48);
  CHECK(same.model.pos == base.model.pos);
  CHECK_FALSE(same.constraint.enabled());

  const TrainConfig v = apply_variant(base, parse_variant("pos=alibi,arch:some/file.safetensors"));
  CHECK(v.model.pos == Positions::alibi);
  CHECK(v.arch_file == "some/file.safetensors");
  CHECK(v.model.width == 48);  // untouched options keep the base's values
  CHECK(v.schedule.base_lr == doctest::Approx(3e-3));

  const TrainConfig c = apply_variant(
      base, parse_variant("constraint=descent,alpha=0.25,dual-lr=0.05,detach-previous"));
  CHECK(c.constraint.enabled());
  REQUIRE(c.constraint.alpha.size() == 1);
  CHECK(c.constraint.alpha[0] == doctest::Approx(0.25));
  CHECK(c.constraint.dual_lr == doctest::Approx(0.05));
  CHECK(c.constraint.detach_previous);
  CHECK_FALSE(apply_variant(base, parse_variant("constraint=descent,detach-previous=false"))
                  .constraint.detach_previous);

  // Items that are not train options are the task's.
  const TrainConfig t = apply_variant(base, parse_variant("p=53,width=32"));
  CHECK(t.task_options.get_string("p", "") == "53");
  CHECK(t.model.width == 32);
}

TEST_CASE("a bad variant fails naming the variant") {
  TrainConfig base;
  CHECK_THROWS_WITH_AS(parse_variant("pos=alibi,,width=3"),
                       doctest::Contains("variant 'pos=alibi,,width=3'"), Error);
  CHECK_THROWS_WITH_AS(apply_variant(base, parse_variant("no-such-option=1")),
                       doctest::Contains("variant 'no-such-option=1'"), Error);
  CHECK_THROWS_WITH_AS(apply_variant(base, parse_variant("width=wide")),
                       doctest::Contains("variant 'width=wide'"), Error);
}
