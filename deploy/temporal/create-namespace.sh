#!/bin/sh
# The namespace the workers use, once the server answers (as Temporal's recipe does: samples-server,
# compose/scripts/create-namespace.sh). Exits 0 when it exists already.
set -eu
NAMESPACE=${TEMPORAL_NAMESPACE:-default}
attempt=1
until temporal operator cluster health --address "$TEMPORAL_ADDRESS" >/dev/null 2>&1; do
  if [ "$attempt" -ge 60 ]; then echo "The Temporal server at $TEMPORAL_ADDRESS did not become healthy"; exit 1; fi
  attempt=$((attempt + 1))
  sleep 2
done
if temporal operator namespace describe --namespace "$NAMESPACE" --address "$TEMPORAL_ADDRESS" >/dev/null 2>&1; then
  echo "Namespace $NAMESPACE exists already"
else
  temporal operator namespace create --namespace "$NAMESPACE" --retention 168h --address "$TEMPORAL_ADDRESS"
  echo "Namespace $NAMESPACE created"
fi
