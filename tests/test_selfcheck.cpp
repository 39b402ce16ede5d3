// The stack trains: the self-check MLP must fit its regression problem.
#include <doctest/doctest.h>

#include "lab/selfcheck.h"

TEST_CASE("a 2-layer MLP trained with SGD through the tape fits sin(3x)") {
  tapir::SelfcheckResult r = tapir::run_selfcheck(3000, 1);
  INFO("mse " << r.initial_loss << " -> " << r.final_loss);
  CHECK(r.initial_loss > 0.1);
  CHECK(r.final_loss < 0.01);
}
