#include "cli/cs_etm_decode_command.h"

#include "CLI/CLI.hpp"
#include "cli/not_built_yet.h"

namespace perftk::cli {

absl::Status RunCsEtmDecode(const CsEtmDecodeOptions&) {
  return NotBuiltYet("perftk cs-etm-decode", 5);
}

void RegisterCsEtmDecodeCommand(CLI::App& app, absl::Status& outcome) {
  auto options = std::make_shared<CsEtmDecodeOptions>();
  CLI::App* sub = app.add_subcommand(
      "cs-etm-decode",
      "Decode Arm CoreSight ETM/ETE trace with OpenCSD into instruction samples with\n"
      "last-branch stacks (input for AutoFDO and BOLT), each stamped with the\n"
      "pid/tid/EL that retired it.");
  sub->add_option("-i,--input", options->input, "Input perf.data ('-' for stdin)")
      ->capture_default_str();
  sub->add_option("-o,--output", options->output, "Output perf.data ('-' for stdout)");
  sub->callback([options, &outcome] { outcome = RunCsEtmDecode(*options); });
}

}  // namespace perftk::cli
