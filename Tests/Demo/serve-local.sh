#!/usr/bin/env bash
# `make serve-local`: wallet-orders serve for development, signing with a development identity and
# pushing to a local APNs stand-in, in one command. What it makes (TEST-ONLY certificates and
# keys, the store, the merchant key, a first order) stays in LOCAL_DIR and is reused next time.
# Ctrl-C (or SIGTERM) stops the service and the stand-in.
#
#   LOCAL_DIR   where it all lives (.local)
#   ORDER_TYPE  the order type it signs for (the samples' order.com.northwindoutfitters.shop)
#   LISTEN      the service's address (127.0.0.1:8080)
#   BIN         the folder with wallet-orders and apns-stand-in (.build-release/release)
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN="${BIN:-$PWD/.build-release/release}"
LOCAL_DIR="${LOCAL_DIR:-.local}"
ORDER_TYPE="${ORDER_TYPE:-order.com.northwindoutfitters.shop}"
LISTEN="${LISTEN:-127.0.0.1:8080}"
TEAM_ID=LOCAL00001
KEY_ID=LOCALKEY01
SAMPLE=Samples/shipped-ecommerce   # its order type is the default one
PIDS=()
stop() {
    for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
}
trap stop EXIT
trap 'exit 0' INT TERM
. Tests/Demo/apns-stand-in.sh

mkdir -p "$LOCAL_DIR"
LOCAL_DIR=$(cd "$LOCAL_DIR" && pwd)
SIGNING="$LOCAL_DIR/signing/$ORDER_TYPE"
FIRST="$LOCAL_DIR/first-order/$ORDER_TYPE"
if [ ! -s "$SIGNING/order-type.pem" ]; then
    "$BIN/wallet-orders" dev-certs --order-type-id "$ORDER_TYPE" --team-id "$TEAM_ID" --out "$SIGNING" >/dev/null
fi
if [ ! -d "$FIRST" ]; then
    # A first order to post: the sample for its own order type, else the one `init` writes.
    if [ "$ORDER_TYPE" = "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["orderTypeIdentifier"])' "$SAMPLE/order.json")" ]; then
        mkdir -p "$(dirname "$FIRST")" && cp -R "$SAMPLE" "$FIRST"
    else
        "$BIN/wallet-orders" init "$FIRST" --order-type-id "$ORDER_TYPE" >/dev/null
    fi
fi
if [ ! -d "$SIGNING/template" ]; then
    # What every order of the type shares (the images), for orders posted as order.json alone.
    cp -R "$FIRST" "$SIGNING/template" && rm "$SIGNING/template/order.json"
fi
apns_credentials "$LOCAL_DIR"
if [ ! -s "$LOCAL_DIR/keys.txt" ]; then
    echo "$(openssl rand -hex 24) $ORDER_TYPE" > "$LOCAL_DIR/keys.txt"   # the merchant's key, then its order types
fi
KEY=$(head -1 "$LOCAL_DIR/keys.txt" | cut -d' ' -f1)

start_apns_stand_in "$LOCAL_DIR" "$KEY_ID" "$TEAM_ID"
# Emptied first: tee empties it only once it runs, and until then the loop below would read the
# address of the last run from it.
: > "$LOCAL_DIR/serve.log"
"$BIN/wallet-orders" serve --store "$LOCAL_DIR/orders.sqlite" --listen "$LISTEN" --api-key-file "$LOCAL_DIR/keys.txt" \
    --signing-dir "$LOCAL_DIR/signing" --trust-root "$SIGNING/root-ca.pem" \
    --apns "127.0.0.1:$APNS_PORT" --apns-ca "$LOCAL_DIR/apns-cert.pem" --apns-token-key "$LOCAL_DIR/token.p8" \
    --apns-key-id "$KEY_ID" --apns-team-id "$TEAM_ID" --push-poll 0.5 2> >(tee "$LOCAL_DIR/serve.log" >&2) &
SERVE=$!
PIDS+=("$SERVE")
URL=
for _ in $(seq 1200); do
    URL=$(grep -o 'listening on https\?://[^ ]*' "$LOCAL_DIR/serve.log" 2>/dev/null | head -1 | cut -d' ' -f3) || true
    [ -n "$URL" ] && break
    kill -0 "$SERVE" 2>/dev/null || break
    sleep 0.05
done
[ -n "$URL" ] || { echo "serve-local: error: the service did not start (its log: $LOCAL_DIR/serve.log)" >&2; exit 1; }
cat <<GUIDE

wallet-orders is serving $ORDER_TYPE on $URL for development (TEST-ONLY keys in $LOCAL_DIR).
Post an order as the merchant (the key is the first word of $LOCAL_DIR/keys.txt):

  curl -H "Authorization: Bearer $KEY" -H "Content-Type: application/json" \\
      --data-binary @$FIRST/order.json $URL/merchant/v1/orders/build

Pushes go to the APNs stand-in on 127.0.0.1:$APNS_PORT; each is a line of $LOCAL_DIR/apns.log
(tail -f it). Ctrl-C stops the service and the stand-in; run it again to carry on.

GUIDE
wait "$SERVE"
