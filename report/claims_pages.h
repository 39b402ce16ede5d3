// The claims table (docs/claims.md), its page with a forest plot per claim
// (docs/claims.html) and the README's tally, written from the records
// alone (lab/claims.h): `tapir claims render`. Nothing here reads a run:
// what a row says is in its record.
// Sits in report/, on lab/ (the records and their options, lab/claims_run.h).
#pragma once
#include <string>
#include <vector>

#include "lab/claims.h"
#include "lab/claims_run.h"

namespace tapir {

std::string render_claims_markdown(const std::vector<ClaimRecord>& records);
std::string render_claims_html(const std::vector<ClaimRecord>& records);
// "Of 41 rows (28 claims): 5 reproduced, ..." as a README paragraph.
std::string render_claims_tally(const std::vector<ClaimRecord>& records);
// `readme` with the text between its tally markers replaced by `tally`;
// throws when the markers are missing.
std::string with_claims_tally(const std::string& readme, const std::string& tally);

// Writes options.md, options.html and options.readme's tally from the
// records in options.records; with options.check, writes nothing and
// returns 1 when any of them differs.
int render_claims(const ClaimsOptions& options);

}  // namespace tapir
