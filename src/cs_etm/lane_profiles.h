// The profile of a decode (kAutoFdo, kBolt): the lanes' branch profiles
// added up, with each binary's addresses laid out as the format's readers
// want them.
//
// Layouts: the PT_LOADs of the user-space binaries whose files were found;
// the others (missing files) keep file offsets. Kernel modules count from
// their .text, as simpleperf's inject writes them: its
// KernelModuleDso::IpToVaddrInFile (dso.cpp) gives a module address as the
// offset from the runtime start of .text plus .text's sh_addr (0 in a .ko),
// and cmd_inject.cpp's AutoFDOWriter subtracts the first PT_LOAD's vaddr, 0
// for a .ko, which has none. Code before .text (arm64's PLT) wraps, as
// there. The kernel's addresses are vmlinux link addresses, from its first
// load for AutoFDO.
#ifndef PERFTK_CS_ETM_LANE_PROFILES_H_
#define PERFTK_CS_ETM_LANE_PROFILES_H_

#include <map>
#include <string>
#include <vector>

#include "cs_etm/binary_images.h"
#include "cs_etm/profile.h"
#include "profile/profile.h"

namespace perftk::cs_etm {

// `format` is kAutoFdo or kBolt; `build_ids` by path, as BranchProfile takes them.
profile::Profile AddUpLaneProfiles(const std::vector<const BranchProfile*>& lanes,
                                   const perf::BuildIdsByPath& build_ids, BinaryImages& images,
                                   profile::Format format);

}  // namespace perftk::cs_etm

#endif  // PERFTK_CS_ETM_LANE_PROFILES_H_
