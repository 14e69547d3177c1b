# storbench in a container — multi-stage, Debian 12.
#
#   docker build -t storbench .
#   docker run -d --name storbench -p 8080:8080 \
#     -v storbench-data:/var/lib/storbench -v /mnt/bench:/bench \
#     storbench serve --listen 0.0.0.0:8080 --data /var/lib/storbench --allow /bench
#   docker exec storbench cat /var/lib/storbench/api-token
#
# The build stage installs the build dependencies with scripts/bootstrap (the
# script the README and CI use) and makes a Release build; the runtime stage
# is debian:12-slim with only the binary's shared libraries, curl for the
# health check, and a non-root user (storbench, uid/gid 10001) that owns the
# data volume. Listening on 0.0.0.0 makes the daemon require its bearer
# token, which it creates in the volume (DATA/api-token, 0600) on first start.
#
# Details — host directories, the token, io_uring under Docker's seccomp
# profile — are in the README, "Service and container".

FROM debian:12 AS build
WORKDIR /src
# the dependencies first, so that a source change does not reinstall them
COPY scripts/bootstrap scripts/bootstrap
RUN ./scripts/bootstrap && rm -rf /var/lib/apt/lists/*
COPY . .
RUN cmake -S . -B /build -DCMAKE_BUILD_TYPE=Release \
 && cmake --build /build -j"$(nproc)" --target storbench \
 && DESTDIR=/stage cmake --install /build --prefix /usr/local --strip

FROM debian:12-slim
# the libraries the binary links (libsmbclient brings samba-libs, libxml2
# brings ICU: most of the image) and curl for HEALTHCHECK
RUN apt-get update -qq \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      libmicrohttpd12 libjansson4 libsqlite3-0 liburing2 libsmbclient \
      libblkid1 libnettle8 libxml2 libcurl4 libiperf0 curl \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin /var/log/apt /var/log/dpkg.log \
 && groupadd --gid 10001 storbench \
 && useradd --uid 10001 --gid 10001 --home-dir /var/lib/storbench \
      --no-create-home --no-log-init --shell /usr/sbin/nologin storbench \
 && install -d -o 10001 -g 10001 -m 0700 /var/lib/storbench
COPY --from=build /stage/usr/local/bin/storbench /usr/local/bin/storbench
COPY --from=build /stage/usr/local/share/doc/storbench /usr/local/share/doc/storbench
# a named volume starts as a copy of this directory, owned by storbench;
# a host directory mounted here must be writable by uid 10001
VOLUME /var/lib/storbench
USER 10001:10001
WORKDIR /var/lib/storbench
EXPOSE 8080
# /healthz needs no token; with another --listen port, give docker run
# --health-cmd (or --no-healthcheck)
HEALTHCHECK --interval=30s --timeout=3s --start-period=10s --retries=3 \
  CMD curl -fsS -o /dev/null http://127.0.0.1:8080/healthz || exit 1
ENTRYPOINT ["/usr/local/bin/storbench"]
CMD ["serve", "--listen", "0.0.0.0:8080", "--data", "/var/lib/storbench"]
