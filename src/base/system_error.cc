#include "base/system_error.h"

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace perftk::base {

std::string SystemErrorText(int error) {
  if (error == EMFILE || error == ENFILE) {
    return absl::StrCat(std::strerror(error),
                        " (raise the limit with `ulimit -n`, or lower --jobs)");
  }
  return std::strerror(error);
}

}  // namespace perftk::base
