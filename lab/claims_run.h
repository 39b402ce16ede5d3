// The work of `tapir claims` (tools/cmd_claims.cpp declares its flags):
// list the records, run the experiments of the claims asked for and write
// their records (rendering the table, its page and the README's tally is
// report/claims_pages.h's). Paths
// default to the repository's, so the commands run from its root.
#pragma once
#include <string>
#include <vector>

#include "lab/claims.h"

namespace tapir {

struct ClaimsOptions {
  std::string records = "claims/records";
  std::string experiments = "claims/experiments.json";
  std::string into;  // run: where the records go (default: records)
  std::string out = "runs/claims";
  std::string md = "docs/claims.md";
  std::string html = "docs/claims.html";
  std::string readme = "README.md";
  std::vector<std::string> ids;
  bool quick = false;
  bool check = false;
  int ranks = 1;
};

// The records named by `ids` ("all" or none: every one), in the order
// given; an unknown id fails naming the known ones.
std::vector<ClaimRecord> chosen_claims(const std::vector<ClaimRecord>& records,
                                       const std::vector<std::string>& ids);
// One line per chosen record (claim_line).
int list_claims(const ClaimsOptions& options);
// Runs each chosen claim's experiment once (and the one it is measured
// against first), in out/EXPERIMENT, each command of it a child process of
// this program (under `mpirun -np ranks` when ranks > 1), then writes each
// claim's record into `into` (default: records) and prints its line.
int run_claims(const ClaimsOptions& options);

}  // namespace tapir
