#pragma once
/// `phasecheck deploy` (cli/deploy.cpp, deploy/deploy.hpp, docs/run.md "Deploy").

#include <iosfwd>
#include <string>
#include <vector>

namespace phasecheck::cli {

struct DeployArgs {
  std::vector<std::string> schedules;  ///< schedule files; "-" (standard input) once
  std::string output;                  ///< LIB.so, or with --emit-c the C file ("-": stdout)
  bool emit_c = false;                 ///< write the routines' C source instead of a library
  std::string sync = "auto";           ///< auto | none | barrier | pairwise
  std::string mpicc = "mpicc";
  double timeout = 300;         ///< seconds for mpicc
  std::string report = "text";  ///< text | json
};
/// Verifies every schedule and, when all pass, writes the PMPI interposer (built by mpicc) or
/// the C routines. Exit 1, nothing written, when a schedule is refused (its report follows).
int deploy(const DeployArgs& args, std::ostream& out);

}  // namespace phasecheck::cli
