#ifndef C_WALLET_ORDERS_ZIP_SHIM_H
#define C_WALLET_ORDERS_ZIP_SHIM_H
// libzip (>= 1.7): archives are written to and read from memory sources
// (zip_source_buffer_create + zip_open_from_source), never temporary files.
#include <zip.h>
#endif
