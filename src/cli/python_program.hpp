#pragma once
// Python programs the CLI runs (nbody plot): the interpreter is found as scripts/python finds it,
// not as the first python3 on PATH (a virtual environment, pyenv or conda Python may lack
// Debian's numpy and matplotlib): $NBODY_PYTHON when set (that one only: the user chose it),
// else /usr/bin/python3, else the python3 first on PATH, the first that has the modules.
#include <filesystem>
#include <string>
#include <vector>

namespace nbody::cli {

// The interpreter that has every module of `modules` (six at most; checked by importlib.util.find_spec in a
// child process). Input error (exit 2), one line, when none has them: which interpreter lacks
// which module and how to get it.
[[nodiscard]] std::string find_python(const std::vector<std::string>& modules);

// A file that ships with the program: <the executable's directory>/../share/nbody/<name> (the
// installed layout, bin/ and share/nbody/, and the build tree's, src/ and share/nbody/).
// Runtime error naming the path when it is not there.
[[nodiscard]] std::filesystem::path shipped_file(const std::string& name);

}  // namespace nbody::cli
