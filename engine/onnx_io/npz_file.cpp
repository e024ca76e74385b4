#include "onnx_io/npz_file.h"

#include <zip.h>

#include <cstdint>
#include <filesystem>
#include <memory>

#include "onnx_io/tensor_file.h"

namespace ql {

namespace {

struct ArchiveCloser {
    void operator()(zip_t *archive) const { zip_discard(archive); }  // read-only: nothing to save
};
struct MemberCloser {
    void operator()(zip_file_t *member) const { zip_fclose(member); }
};
using Archive = std::unique_ptr<zip_t, ArchiveCloser>;
using Member = std::unique_ptr<zip_file_t, MemberCloser>;

// Deflate expands at most about 1032:1, so a deflated member claiming more is lying.
constexpr uint64_t kMaxDeflateRatio = 1032;
// Room for a .npy header beside the largest tensor allowed.
constexpr uint64_t kNpyHeaderRoom = uint64_t(1) << 20;

Status bad(const std::string &where, const std::string &why) {
    return Status::badInput(where + ": " + why);
}

Result<Archive> openArchive(const std::string &path) {
    int code = ZIP_ER_OK;
    // CHECKCONS: compare local and central headers, so a damaged archive is refused up front.
    zip_t *archive = zip_open(path.c_str(), ZIP_RDONLY | ZIP_CHECKCONS, &code);
    if (archive) return Archive(archive);
    switch (code) {
        case ZIP_ER_NOENT:
        case ZIP_ER_OPEN:
            return bad(path, "cannot open file");
        case ZIP_ER_READ:
        case ZIP_ER_SEEK:
            return bad(path, "corrupt .npz archive (read failed)");
        case ZIP_ER_NOZIP:
            return bad(path, "not an .npz file (not a zip archive, or truncated)");
        default: {
            zip_error_t error;
            zip_error_init_with_code(&error, code);
            const std::string text = zip_error_strerror(&error);
            zip_error_fini(&error);
            return bad(path, "corrupt .npz archive (" + text + ")");
        }
    }
}

// The member's uncompressed size, once the archive could really hold it: a lying size field
// must not decide how much is allocated.
Result<uint64_t> memberSize(const zip_stat_t &stat, uint64_t archiveBytes,
                            const std::string &where) {
    const zip_uint64_t needed = ZIP_STAT_SIZE | ZIP_STAT_COMP_SIZE | ZIP_STAT_COMP_METHOD;
    if ((stat.valid & needed) != needed) return bad(where, "member sizes unknown");
    if (stat.comp_size > archiveBytes)
        return bad(where, "member of " + std::to_string(stat.comp_size) +
                              " bytes in an archive of " + std::to_string(archiveBytes));
    const uint64_t most =
        stat.comp_method == ZIP_CM_STORE ? stat.comp_size : stat.comp_size * kMaxDeflateRatio;
    if (stat.size > most)
        return bad(where, "member claims " + std::to_string(stat.size) + " bytes, more than its " +
                              std::to_string(stat.comp_size) + " compressed bytes can hold");
    if (stat.size > maxTensorBytes() + kNpyHeaderRoom)
        return bad(where, "member of " + std::to_string(stat.size) +
                              " bytes is over the limit of " + std::to_string(maxTensorBytes()) +
                              " (QL_MAX_TENSOR_BYTES)");
    return static_cast<uint64_t>(stat.size);
}

Result<std::string> readMember(zip_t *archive, zip_uint64_t index, uint64_t size,
                               const std::string &where) {
    Member member(zip_fopen_index(archive, index, 0));
    if (!member)
        return bad(where, std::string("cannot read member (") + zip_strerror(archive) + ")");
    std::string bytes(static_cast<size_t>(size), '\0');
    const zip_int64_t got = size ? zip_fread(member.get(), bytes.data(), size) : 0;
    if (got < 0)
        return bad(where, std::string("corrupt member (") + zip_file_strerror(member.get()) + ")");
    if (static_cast<uint64_t>(got) != size)
        return bad(where, "truncated member: " + std::to_string(got) + " of " +
                              std::to_string(size) + " bytes");
    // libzip checks the CRC only when a read reaches the end of the member.
    char past;
    const zip_int64_t more = zip_fread(member.get(), &past, 1);
    if (more < 0)
        return bad(where, std::string("corrupt member (") + zip_file_strerror(member.get()) + ")");
    if (more > 0)
        return bad(where, "member longer than its declared " + std::to_string(size) + " bytes");
    return bytes;
}

bool endsWith(const std::string &text, const std::string &suffix) {
    return text.size() >= suffix.size() &&
           text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

Result<NpzArray> readArray(zip_t *archive, zip_uint64_t index, uint64_t archiveBytes,
                           const std::string &path) {
    zip_stat_t stat;
    zip_stat_init(&stat);
    if (zip_stat_index(archive, index, 0, &stat) != 0 || !(stat.valid & ZIP_STAT_NAME))
        return bad(path, std::string("corrupt .npz archive (") + zip_strerror(archive) + ")");
    const std::string member = stat.name;
    const std::string where = path + ": " + member;
    if (!endsWith(member, ".npy"))
        return bad(where, "not a .npy member (an .npz holds only .npy arrays)");
    auto size = memberSize(stat, archiveBytes, where);
    if (!size) return size.status();
    auto bytes = readMember(archive, index, *size, where);
    if (!bytes) return bytes.status();
    auto tensor = readNpyFromMemory(bytes->data(), bytes->size(), where);
    if (!tensor) return tensor.status();
    return NpzArray{member.substr(0, member.size() - 4), std::move(*tensor)};
}

}  // namespace

Result<std::vector<NpzArray>> readNpz(const std::string &path) {
    std::error_code error;
    const uint64_t archiveBytes = std::filesystem::file_size(path, error);  // fails on a folder too
    if (error) return bad(path, "cannot open file");
    auto archive = openArchive(path);
    if (!archive) return archive.status();
    const zip_int64_t count = zip_get_num_entries(archive->get(), 0);
    if (count <= 0) return bad(path, "empty .npz archive (no arrays)");
    std::vector<NpzArray> arrays;
    for (zip_int64_t i = 0; i < count; ++i) {
        auto array = readArray(archive->get(), static_cast<zip_uint64_t>(i), archiveBytes, path);
        if (!array) return array.status();
        arrays.push_back(std::move(*array));
    }
    return arrays;
}

}  // namespace ql
