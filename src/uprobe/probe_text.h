// What uprobe-offset prints: probe sites as hex offsets, as lines for
// /sys/kernel/tracing/uprobe_events, as JSON, and the two listings.
//
// Event names come from the query ("vfn@@VER_2" -> "vfn_VER_2"), made
// unique within one answer ("_2", "_3"...) when a name gave several sites.
#ifndef PERFTK_UPROBE_PROBE_TEXT_H_
#define PERFTK_UPROBE_PROBE_TEXT_H_

#include <string>
#include <vector>

#include "uprobe/uprobe_resolver.h"
#include "uprobe/usdt_resolver.h"

namespace perftk::uprobe {

// How sites become uprobe_events lines.
struct EventStyle {
  bool return_probe = false;  // "r:" (a return probe) rather than "p:"
  std::string group = "perftk";
};

// One "0xOFFSET[ ref_ctr=0x..][ argN=FETCH...]" line per site, each led by
// its query when `name_each` (several names asked, or a name gave several).
std::string HexLines(const std::vector<ProbeSite>& sites, bool name_each);
// One uprobe_events line per site: "p:GROUP/EVENT PATH:0xOFFSET[(0xREF)] ARGS".
std::string UprobeEventLines(const std::vector<ProbeSite>& sites, const EventStyle& style);
// A JSON array of the sites, each with its uprobe_events line.
std::string SitesJson(const std::vector<ProbeSite>& sites, const EventStyle& style);

// "0x%08x  SYMBOL" per function, as `perf probe -F` lists names.
std::string FunctionListing(const std::vector<ListedSite>& sites);
// "0x%08x  PROVIDER:NAME  location=.. base=.. semaphore=.. ref_ctr=..  ARGS"
// per note: the note's own numbers (as readelf -n prints them).
std::string UsdtListing(const std::vector<UsdtProbe>& probes);

}  // namespace perftk::uprobe

#endif  // PERFTK_UPROBE_PROBE_TEXT_H_
