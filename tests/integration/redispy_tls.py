"""redis-py over TLS against a server whose tls-auth-clients is optional
(test_tls.c's redis_py): with a client certificate, without one, and one
of another CA refused. Usage: redispy_tls.py TLS_PORT CERT_DIR."""
import sys

import redis

port, d = int(sys.argv[1]), sys.argv[2]
ca = d + "/ca.crt"

with_cert = redis.Redis(port=port, ssl=True, ssl_ca_certs=ca, ssl_certfile=d + "/client.crt",
                        ssl_keyfile=d + "/client.key")
assert with_cert.ping()
assert with_cert.set("py", "1")
pipe = with_cert.pipeline(transaction=True)
for i in range(1000):
    pipe.incr("py")
assert pipe.execute()[-1] == 1001
big = b"x" * (1 << 20)
with_cert.set("pybig", big)
assert with_cert.get("pybig") == big

without = redis.Redis(port=port, ssl=True, ssl_ca_certs=ca)
assert without.get("py") == b"1001"
ps = without.pubsub()
ps.subscribe("ch")
assert ps.get_message(timeout=5)["type"] == "subscribe"
with_cert.publish("ch", "over tls")
m = ps.get_message(timeout=5)
assert m and m["data"] == b"over tls", m

rogue = redis.Redis(port=port, ssl=True, ssl_ca_certs=ca, ssl_certfile=d + "/rogue.crt",
                    ssl_keyfile=d + "/rogue.key")
try:
    rogue.ping()
    raise SystemExit("a certificate of another CA was served")
except (redis.exceptions.ConnectionError, OSError):
    pass

# the server's certificate is checked by the client too
try:
    redis.Redis(port=port, ssl=True, ssl_ca_certs=d + "/other-ca.crt").ping()
    raise SystemExit("a server certificate of an untrusted CA was accepted")
except (redis.exceptions.ConnectionError, OSError):
    pass
print("redispy_tls ok")
