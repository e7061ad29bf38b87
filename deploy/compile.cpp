#include "deploy/compile.hpp"

#include <fstream>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/limits.hpp"
#include "launch/process.hpp"

namespace phasecheck::deploy {

std::vector<std::string> mpicc_arguments(const CompileOptions& options, const std::string& source,
                                         const std::string& library) {
  return {options.mpicc, "-std=c99", "-O2", "-fPIC", "-shared", "-Wall",
          "-Wextra",     "-Werror",  "-o",  library, source};
}

void build_shared_library(const std::string& c_source, const std::string& output,
                          const std::vector<std::string>& inputs, const CompileOptions& options) {
  check_timeout(options.timeout);
  check_output(output, inputs);
  const launch::ScratchDirectory scratch;
  const std::string source = scratch.file("phasecheck_interposer.c");
  const std::string library = scratch.file("libphasecheck_interposer.so");
  {
    std::ofstream out(source, std::ios::binary);
    out << c_source;
    if (!out.flush()) throw InputError(source + ": cannot write the interposer's source");
  }
  launch::Command command;
  command.argv = mpicc_arguments(options, source, library);
  command.directory = scratch.path();
  command.timeout = options.timeout;
  const launch::Finished done = launch::run(command);
  if (!done.status || *done.status != 0)
    throw InputError(options.mpicc + " could not build the interposer (" +
                     done.describe(options.timeout) + ")" +
                     (done.err.empty() && done.out.empty() ? std::string()
                                                           : ":\n" + done.err_tail() + done.out));
  const std::string bytes = read_input(library);
  write_output(
      output, [&](std::ostream& os) { os.write(bytes.data(), std::streamsize(bytes.size())); },
      inputs);
}

}  // namespace phasecheck::deploy
