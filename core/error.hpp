#pragma once
/// The one error type for bad input: malformed or hostile files, impossible parameters, misuse of
/// the API. The command-line program turns it into exit code 2. Verdicts about schedules are never
/// thrown; they are data (see verify/report.hpp).

#include <stdexcept>
#include <string>

namespace phasecheck {

class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace phasecheck
