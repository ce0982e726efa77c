# wallet-orders serve in a container: the binary and its Swift runtime libraries, as `make install`
# builds and installs them, in Swift's image, then run in Debian's slim image with only the C
# libraries they link.
#
#   docker build -t wallet-orders .
#   docker run -d --name wallet-orders -p 127.0.0.1:8080:8080 -v wallet-orders:/var/lib/wallet-orders \
#       --env-file wallet-orders.env wallet-orders
#
# (published on loopback for a reverse proxy that terminates TLS: Wallet talks HTTPS only)
#
# wallet-orders.env holds the settings and secrets as WALLET_ORDERS_* variables, one a line and
# without quotes (Docker's --env-file takes every character after "="), for example
# WALLET_ORDERS_API_KEYS=KEY1 order.com.example.shop;KEY2 *
# Mount a signing folder read-only (-v "$PWD/signing:/etc/wallet-orders/signing:ro") and set
# WALLET_ORDERS_SIGNING_DIRECTORY=/etc/wallet-orders/signing. See "In a container" in the
# RunningTheService article.
#
# The repository's CI has no Docker engine, so this file is not built there. .ci/check-install
# checks that the runtime stage installs exactly the Debian packages of the libraries that `ldd`
# lists for the binary built on Debian 12, as this image is (the Swift runtime aside).

# The Swift that CI builds with, on Debian 12 like the runtime stage.
FROM swift:6.3-bookworm AS build
RUN apt-get update \
    && apt-get install -y --no-install-recommends make pkg-config libssl-dev libzip-dev zlib1g-dev libsqlite3-dev libzint-dev \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
# `make install` names the commit in `--version` (when .git is in the context; else "unknown
# commit"), and puts the runtime libraries the binary loads in /out/lib/wallet-orders.
RUN make install PREFIX=/out RELEASE_PRODUCTS=wallet-orders

FROM debian:bookworm-slim
# The shared libraries `ldd wallet-orders` lists, by Debian package (libc6 is in the image already),
# and ca-certificates for the TLS connection to Apple's push service.
RUN apt-get update \
    && apt-get install -y --no-install-recommends libgcc-s1 libstdc++6 libssl3 libzip4 libbz2-1.0 zlib1g libsqlite3-0 libzint2.11 libpng16-16 ca-certificates \
    && rm -rf /var/lib/apt/lists/*
RUN groupadd --system --gid 10001 wallet-orders \
    && useradd --system --uid 10001 --gid wallet-orders --home-dir /var/lib/wallet-orders --shell /usr/sbin/nologin wallet-orders \
    && install -d -o wallet-orders -g wallet-orders -m 0700 /var/lib/wallet-orders
COPY --from=build /out/bin/wallet-orders /usr/local/bin/wallet-orders
COPY --from=build /out/lib/wallet-orders /usr/local/lib/wallet-orders
USER 10001:10001
WORKDIR /var/lib/wallet-orders
VOLUME /var/lib/wallet-orders
# Inside the container the service listens on every address, so that -p can publish the port.
ENV WALLET_ORDERS_STORE=/var/lib/wallet-orders/orders.sqlite \
    WALLET_ORDERS_LISTEN=0.0.0.0:8080
EXPOSE 8080
# SIGTERM (docker stop) stops it gracefully: requests in flight finish, pushes being sent complete.
STOPSIGNAL SIGTERM
ENTRYPOINT ["wallet-orders"]
CMD ["serve"]
