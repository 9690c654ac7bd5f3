// BOLT pre-aggregated text (perf2bolt --pa) of one binary:
//   F START END COUNT           a range run straight through
//   B FROM TO COUNT MISPREDICTED  a taken branch (TO 0: unknown)
// addresses in hex, as virtual addresses of the binary given to perf2bolt;
// F lines then B lines, each sorted by address.
//
// BOLT's format has no place for a binary's path, but any address may be
// written ID:ADDRESS, ID the build id of the object it is in (bolt-16's
// DataAggregator::parseLocationOrOffset; it reads the address and leaves
// the id aside). perftk writes the binary's build id so once, on the first
// address of the first line, and reads a text's build id from there: every
// ID in one text must be the same.
#ifndef PERFTK_PROFILE_BOLT_TEXT_H_
#define PERFTK_PROFILE_BOLT_TEXT_H_

#include <string>

#include "absl/status/status.h"
#include "profile/line_reader.h"
#include "profile/profile.h"

namespace perftk::profile {

std::string BoltText(const BinaryKey& key, const BinaryCounts& counts);

// BOLT reads an F line as a trace from a taken branch's target to the next
// taken branch, and counts the fall-through edges between the blocks the
// trace crosses (bolt-16's DataAggregator::getFallthroughsInTrace). ETM
// ranges, as AutoFDO wants them, also end at every branch not taken, so
// the edge from such a branch to the next instruction lies in no F line
// and BOLT sees the branch's block as never falling through. Adds, for
// each address E where ranges end more often than taken branches leave
// (a branch not taken, an exception's return, a trace cut), the range
// E to E+4 counted by the difference: the edges BOLT would have counted
// on traces that run through E.
void AddFallThroughs(BinaryCounts& counts);

// Adds the text `lines` reads to `into` (a profile of BOLT format, or
// empty), as the binary of its build id and an empty path; a text with
// counts and no build id is an error, as a text of an unknown binary.
absl::Status ReadBoltText(LineReader& lines, Profile& into);

}  // namespace perftk::profile

#endif  // PERFTK_PROFILE_BOLT_TEXT_H_
