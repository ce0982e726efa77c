#!/usr/bin/env bash
# The web service act of `make demo`: wallet-orders serve on loopback with a demo store, a local
# APNs stand-in, and curl playing a customer's iPhone and the merchant. TEST-ONLY certificates
# and keys are made in a temporary folder and removed with it; every process is stopped at the end.
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN="${BIN:-$PWD/.build-release/release}"
TYPE=order.com.northwindoutfitters.shop
ORDER=nw-2025-118734
TOKEN=q7Jc2VxM9pLr4TzW8bKd3NfY6hGs1AeU        # the sample's authenticationToken
DEVICE_TOKEN=$(printf 'a1%.0s' $(seq 32))
WORK=$(mktemp -d "${TMPDIR:-/tmp}/wallet-orders-web-demo.XXXXXX")
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT
say() { printf '\n%s\n' "$*"; }
fail() { echo "demo: error: $*" >&2; exit 1; }
show() { printf '  $ %s\n' "$*"; }
. Tests/Demo/apns-stand-in.sh

# Set-up: a signing identity for the sample's order type, the first version in a fresh store.
"$BIN/wallet-orders" dev-certs --order-type-id "$TYPE" --team-id DEMO000001 --out "$WORK/signing/$TYPE" >/dev/null
cp -r Samples/shipped-ecommerce "$WORK/source"
# What every order of the type shares (the images), for orders the service builds itself.
cp -r Samples/shipped-ecommerce "$WORK/signing/$TYPE/template" && rm "$WORK/signing/$TYPE/template/order.json"
"$BIN/wallet-orders" build "$WORK/source" --out "$WORK/v1.order" --cert "$WORK/signing/$TYPE/order-type.pem" \
    --key "$WORK/signing/$TYPE/order-type.key.pem" --wwdr "$WORK/signing/$TYPE/wwdr-intermediate.pem" >/dev/null
"$BIN/wallet-orders" store save "$WORK/v1.order" --store "$WORK/orders.sqlite" --trust-root "$WORK/signing/$TYPE/root-ca.pem" >/dev/null
apns_credentials "$WORK"
KEY=$(openssl rand -hex 24)
echo "$KEY $TYPE" > "$WORK/keys.txt"   # the merchant's key, then the order types it may act on

start_apns_stand_in "$WORK" DEMOKEY001 DEMO000001

"$BIN/wallet-orders" serve --store "$WORK/orders.sqlite" --listen 127.0.0.1:0 --api-key-file "$WORK/keys.txt" \
    --trust-root "$WORK/signing/$TYPE/root-ca.pem" --signing-dir "$WORK/signing" --log-level warning \
    --apns "127.0.0.1:$APNS_PORT" --apns-ca "$WORK/apns-cert.pem" --apns-token-key "$WORK/token.p8" \
    --apns-key-id DEMOKEY001 --apns-team-id DEMO000001 --push-poll 0.2 2> "$WORK/serve.log" &
PIDS+=($!)
for _ in $(seq 600); do grep -q 'listening on' "$WORK/serve.log" 2>/dev/null && break; sleep 0.05; done
URL=$(grep -o 'http://[0-9.:]*' "$WORK/serve.log" | head -1)
[ -n "$URL" ] || { cat "$WORK/serve.log" >&2; exit 1; }

echo
echo "The web service: wallet-orders serve on $URL, pushing to a local APNs stand-in on port $APNS_PORT."

say "1. A customer adds the order to Wallet; the iPhone registers for its updates."
show "curl -X POST $URL/v1/devices/iphone-1/registrations/$TYPE/$ORDER -H 'Authorization: AppleOrder …' -d '{\"pushToken\": \"a1a1…\"}'"
status=$(curl -s -o /dev/null -w '%{http_code}' -X POST "$URL/v1/devices/iphone-1/registrations/$TYPE/$ORDER" \
    -H "Authorization: AppleOrder $TOKEN" -H 'Content-Type: application/json' -d "{\"pushToken\": \"$DEVICE_TOKEN\"}")
[ "$status" = 201 ] || fail "registration answered $status"
echo "  → $status (registered)"

say "2. Wallet fetches the order."
curl -s -D "$WORK/h1" -o "$WORK/fetched.order" -H "Authorization: AppleOrder $TOKEN" "$URL/v1/orders/$TYPE/$ORDER"
ETAG1=$(grep -i '^etag:' "$WORK/h1" | tr -d '\r' | cut -d' ' -f2)
echo "  → $(head -1 "$WORK/h1" | tr -d '\r' | cut -d' ' -f2), $(wc -c < "$WORK/fetched.order") bytes of $(grep -i '^content-type:' "$WORK/h1" | tr -d '\r' | cut -d' ' -f2), $(grep -i '^last-modified:' "$WORK/h1" | tr -d '\r')"

say "3. The merchant ships it: a new status, posted as order.json; the service signs and stores it."
python3 - "$WORK/source/order.json" <<'PY'
import json, sys
order = json.load(open(sys.argv[1]))
order["status"] = "completed"
order["statusDescription"] = "Delivered"
order["updatedAt"] = "2025-11-23T09:15:00Z"
json.dump(order, open(sys.argv[1], "w"), indent=2)
PY
show "curl -X POST $URL/merchant/v1/orders/build -H 'Authorization: Bearer …' -H 'Content-Type: application/json' --data-binary @order.json"
answer=$(curl -s -X POST "$URL/merchant/v1/orders/build" -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' --data-binary @"$WORK/source/order.json")
case "$answer" in *'"result":"added"'*) ;; *) fail "the merchant's build was refused: $answer" ;; esac
echo "  → $answer"

say "4. The push arrives at APNs (the stand-in): topic = the order type, empty payload."
for _ in $(seq 400); do grep -q '"event":"push"' "$WORK/apns.log" && break; sleep 0.05; done
grep -q '"event":"push"' "$WORK/apns.log" || fail "no push reached the stand-in: $(cat "$WORK/serve.log")"
python3 - "$WORK/apns.log" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    event = json.loads(line)
    if event.get("event") == "push":
        print(f"  → {event['status']} to device token {event['deviceToken'][:8]}…, topic {event['topic']}, "
              f"apns-push-type {event['headers'].get('apns-push-type')}, payload {event['body']}")
PY

say "5. The iPhone asks which of its orders changed, then fetches the new version."
show "curl $URL/v1/devices/iphone-1/registrations/$TYPE"
echo "  → $(curl -s "$URL/v1/devices/iphone-1/registrations/$TYPE")"
curl -s -D "$WORK/h2" -o "$WORK/new.order" -H "Authorization: AppleOrder $TOKEN" -H "If-None-Match: $ETAG1" "$URL/v1/orders/$TYPE/$ORDER"
ETAG2=$(grep -i '^etag:' "$WORK/h2" | tr -d '\r' | cut -d' ' -f2)
[ "$(head -1 "$WORK/h2" | tr -d '\r' | cut -d' ' -f2)" = 200 ] || fail "the new version was not served"
echo "  → $(head -1 "$WORK/h2" | tr -d '\r' | cut -d' ' -f2), $(wc -c < "$WORK/new.order") bytes, status now: $(python3 -c 'import sys, zipfile, json; print(json.loads(zipfile.ZipFile(sys.argv[1]).read("order.json"))["status"])' "$WORK/new.order")"

say "6. A repeat fetch with the new ETag: nothing to send."
echo "  → $(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: AppleOrder $TOKEN" -H "If-None-Match: $ETAG2" "$URL/v1/orders/$TYPE/$ORDER") Not Modified"

echo
echo "Stopping the service (SIGTERM: requests in flight finish, the push worker drains) and the stand-in."
