#ifndef C_WALLET_ORDERS_ZIP_SHIM_H
#define C_WALLET_ORDERS_ZIP_SHIM_H
// libzip (>= 1.7): archives are read from memory sources (zip_source_buffer_create +
// zip_open_from_source), never temporary files.
#include <zip.h>
// zlib (libzip's own dependency): raw deflate and CRC-32 for writing archives in memory.
#include <zlib.h>

/// `deflateInit2` is a macro: a raw deflate stream (no zlib header), 32 KiB window, memLevel 8.
static inline int CWalletOrdersZip_deflateInitRaw(z_stream *stream, int level) {
    return deflateInit2(stream, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY);
}
#endif
