# storbench — multi-stage build on Debian 12. The build stage uses
# scripts/bootstrap, the same script the README and CI use; the runtime stage
# holds only the shared libraries and the binary.
FROM debian:12 AS build
WORKDIR /src
COPY . .
RUN ./scripts/bootstrap \
 && cmake -S . -B build -DCMAKE_BUILD_TYPE=Release \
 && cmake --build build -j"$(nproc)"

FROM debian:12
RUN apt-get update -qq \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      libmicrohttpd12 libjansson4 libsqlite3-0 liburing2 libsmbclient0 libblkid1 libnettle8 libxml2 \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /src/build/storbench /usr/local/bin/storbench
VOLUME /var/lib/storbench
EXPOSE 8080
ENTRYPOINT ["/usr/local/bin/storbench"]
CMD ["serve", "--listen", "0.0.0.0:8080", "--data", "/var/lib/storbench"]
