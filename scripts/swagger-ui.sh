#!/usr/bin/env bash
# Refreshes the Swagger UI files that GET /docs serves from the binary
# (api/docs, embedded with go:embed: no CDN, works offline) from the npm
# package swagger-ui-dist. Only the files the page needs are kept, with the
# package's licences. Usage: scripts/swagger-ui.sh [VERSION]   (make swagger-ui)
set -euo pipefail
version=${1:-5.35.0}
cd "$(dirname "$0")/.."
dest=api/docs
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm pack --silent "swagger-ui-dist@$version" >/dev/null && tar xzf "swagger-ui-dist-$version.tgz")
for f in swagger-ui-bundle.js swagger-ui-bundle.js.LICENSE.txt swagger-ui.css favicon-32x32.png LICENSE NOTICE; do
  cp "$work/package/$f" "$dest/$f"
done
# The stylesheet names its source map; the map is not shipped.
sed -i '/sourceMappingURL=/d' "$dest/swagger-ui.css"
echo "$version" > "$dest/SWAGGER_UI_VERSION"
echo "api/docs: swagger-ui-dist $version"
