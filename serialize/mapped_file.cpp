// MappedFile: mmap(MAP_PRIVATE) of a whole file and storages that hold it mapped (the way
// PyTorch's safetensors loader maps a file with UntypedStorage.from_file(shared=False)).
#include <ember/serialize/mapped_file.h>

#include <sys/mman.h>

namespace ember::serialize_io {

std::shared_ptr<MappedFile> MappedFile::map(int fd, uint64_t size) {
  if (size == 0) return nullptr;
  void* base = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
  if (base == MAP_FAILED) return nullptr;
#ifdef MADV_WILLNEED
  ::madvise(base, size, MADV_WILLNEED);  // advisory: start reading ahead what is not cached
#endif
  return std::shared_ptr<MappedFile>(new MappedFile(base, size));
}

MappedFile::~MappedFile() { ::munmap(base_, size_); }

namespace {
// The storage's ctx is a heap copy of the shared_ptr that keeps the mapping alive.
void release(void* /*ptr*/, void* ctx) { delete static_cast<std::shared_ptr<MappedFile>*>(ctx); }
}  // namespace

Storage MappedFile::storage(uint64_t offset, uint64_t nbytes) {
  auto keep = std::make_unique<std::shared_ptr<MappedFile>>(shared_from_this());
  DataPtr dp;
  dp.ptr = static_cast<unsigned char*>(base_) + offset;
  dp.ctx = keep.get();
  dp.deleter = &release;
  Storage storage = std::make_shared<StorageImpl>(dp, static_cast<size_t>(nbytes), Device(kCPU));
  keep.release();  // now owned by the storage's deleter
  return storage;
}

}  // namespace ember::serialize_io
