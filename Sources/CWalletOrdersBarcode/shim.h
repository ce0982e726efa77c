#ifndef C_WALLET_ORDERS_BARCODE_SHIM_H
#define C_WALLET_ORDERS_BARCODE_SHIM_H
// libzint (Debian's libzint-dev, 2.11+): encodes the four symbologies Wallet shows (QR, PDF417,
// Aztec, Code 128) and lays them out as rectangles (ZBarcode_Encode_and_Buffer_Vector); the
// preview draws those as SVG itself, so zint never writes a file.
#include <zint.h>

// zint keeps its error text in a fixed char array; Swift imports that as a tuple, so hand out a
// pointer to its first character instead (NUL-terminated by zint).
static inline const char *CWalletOrdersBarcode_errorText(const struct zint_symbol *symbol) {
    return symbol->errtxt;
}
#endif
