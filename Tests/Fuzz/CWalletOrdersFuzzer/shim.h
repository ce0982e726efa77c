// libFuzzer's driver, in the runtime that `-sanitize=fuzzer` links (libclang_rt.fuzzer, shipped
// with the Swift toolchain). Declared here, not linked: only the fuzzing build calls it.
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
