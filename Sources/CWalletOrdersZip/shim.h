#ifndef C_WALLET_ORDERS_ZIP_SHIM_H
#define C_WALLET_ORDERS_ZIP_SHIM_H
// libzip (>= 1.7): archives are written to and read from memory sources
// (zip_source_buffer_create + zip_open_from_source), never temporary files.
#include <zip.h>
// zlib, libzip's own compression library (libzip-dev depends on zlib1g-dev): the writer deflates
// entries itself with a state sized for small files and hands libzip the compressed bytes.
#include <zlib.h>
#endif
