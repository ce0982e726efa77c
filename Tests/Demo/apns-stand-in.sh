# Sourced by the web-service demo and `make serve-local`: a local APNs stand-in with TEST-ONLY
# credentials. Needs BIN (the folder with apns-stand-in) and PIDS (an array the caller stops).

# apns_credentials DIR: a TLS certificate for 127.0.0.1 and an ES256 token key, unless DIR has them.
apns_credentials() {
    local dir=$1
    [ -s "$dir/apns-cert.pem" ] && [ -s "$dir/token.p8" ] && return 0
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 365 -subj /CN=127.0.0.1 \
        -addext subjectAltName=IP:127.0.0.1 -keyout "$dir/apns-key.pem" -out "$dir/apns-cert.pem" 2>/dev/null
    openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$dir/token.p8"
    openssl pkey -in "$dir/token.p8" -pubout -out "$dir/token.pub"
}

# start_apns_stand_in DIR KEY_ID TEAM_ID: starts the stand-in on a free loopback port, its JSON
# lines in DIR/apns.log; sets APNS_PORT.
start_apns_stand_in() {
    local dir=$1 key_id=$2 team_id=$3
    : > "$dir/apns.log"
    "$BIN/apns-stand-in" --cert "$dir/apns-cert.pem" --key "$dir/apns-key.pem" --listen 127.0.0.1:0 \
        --jwt-key "$dir/token.pub" --key-id "$key_id" --team-id "$team_id" >> "$dir/apns.log" 2>&1 &
    PIDS+=($!)
    for _ in $(seq 200); do grep -q '"port"' "$dir/apns.log" 2>/dev/null && break; sleep 0.05; done
    APNS_PORT=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["port"])' "$dir/apns.log")
}
