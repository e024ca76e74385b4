#include "onnx_io/atomic_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include <unistd.h>

namespace ql {

Status writeFileAtomically(const std::string &path,
                           const std::function<bool(std::ostream &)> &write) {
    const std::string temporary = path + ".part-" + std::to_string(getpid());
    {
        std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
        if (!out) return Status::io(path + ": cannot write (" + std::strerror(errno) + ")");
        const bool written = write(out);
        out.flush();
        if (!written || !out) {
            const std::string reason = std::strerror(errno);
            out.close();
            std::remove(temporary.c_str());
            return Status::io(path + ": write failed (" + reason + ")");
        }
    }
    if (std::rename(temporary.c_str(), path.c_str()) != 0) {
        const std::string reason = std::strerror(errno);
        std::remove(temporary.c_str());
        return Status::io(path + ": cannot write (" + reason + ")");
    }
    return Status::ok();
}

}  // namespace ql
