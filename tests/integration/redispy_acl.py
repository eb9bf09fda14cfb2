#!/usr/bin/python3
"""Redis 7.0's ACL as an application sees it through redis-py (Debian
python3-redis 4.3.4): the behaviours redis-py's own ACL tests check
(test_acl_cat_*, test_acl_dryrun, test_acl_deluser, test_acl_genpass,
test_acl_getuser_setuser with hashed passwords and selectors, test_acl_help,
test_acl_list, test_acl_log, test_acl_setuser_*_fails, test_acl_users,
test_acl_whoami, test_auth), written anew with python3-redis's API, plus what
a client connected as a user meets: NOPERM on commands, keys and channels,
AUTH and HELLO AUTH, the default user switched off, connections of a deleted
user closed, users from config lines and from an aclfile (ACL LOAD / SAVE).

Usage: redispy_acl.py PORT PART [ACLFILE]; PART is one of the names in PARTS
below (aclfile takes the server's aclfile path). Prints "redispy_acl: ok
PART" when the part passed and exits 0; run by
tests/integration/test_acl_clients.c, one Check test per part. Every part
leaves the server as it found it: the users it made deleted, the ACL log
reset, requirepass and the default user as before (the driver checks)."""
import hashlib
import sys

import redis
from redis.exceptions import (AuthenticationError, DataError,
                              NoPermissionError, ResponseError)

PORT = int(sys.argv[1])
USER = "redis-py-user"
WRONGPASS = "WRONGPASS invalid username-password pair or user is disabled."


def client(**kw):
    return redis.Redis(host="127.0.0.1", port=PORT, decode_responses=True,
                       socket_timeout=10, **kw)


def raises(exc, fn, *args, **kw):
    """Calls fn, which must raise exc; returns the exception's text."""
    try:
        fn(*args, **kw)
    except exc as e:
        return str(e)
    raise AssertionError("%s%r did not raise %s" % (fn.__name__, args, exc.__name__))


def sha256(text):
    return hashlib.sha256(text.encode()).hexdigest()


def noperm_cmd(name):
    return "this user has no permissions to run the '%s' command" % name


NOPERM_KEY = "this user has no permissions to access one of the keys used as arguments"
NOPERM_CHANNEL = ("this user has no permissions to access one of the channels "
                  "used as arguments")


# ---- ACL CAT ----

CATEGORIES = {"keyspace", "read", "write", "set", "sortedset", "list", "hash",
              "string", "bitmap", "hyperloglog", "geo", "stream", "pubsub",
              "admin", "fast", "slow", "blocking", "dangerous", "connection",
              "transaction", "scripting"}


def part_cat(r):
    cats = r.acl_cat()
    assert isinstance(cats, list)
    assert set(cats) == CATEGORIES and len(cats) == len(CATEGORIES), cats
    read = r.acl_cat("read")
    assert isinstance(read, list) and "get" in read and "set" not in read, read
    assert "set" in r.acl_cat("write")
    # category names are case-insensitive, subcommands are listed by full name
    assert set(r.acl_cat("READ")) == set(read)
    assert "config|get" in r.acl_cat("admin")
    assert "keys" in r.acl_cat("keyspace")
    e = raises(ResponseError, r.acl_cat, "nosuchcat")
    assert e == "Unknown category 'nosuchcat'", e


# ---- ACL DRYRUN ----

def part_dryrun(r):
    try:
        assert r.acl_setuser(USER, keys=["*"], commands=["+set"])
        assert r.acl_dryrun(USER, "set", "key", "value") == "OK"
        assert r.acl_dryrun(USER, "get", "key") == \
            "This user has no permissions to run the 'get' command"
        assert r.acl_setuser(USER, reset=True, enabled=True, nopass=True,
                             keys=["cache:*"], commands=["+get", "+set"])
        assert r.acl_dryrun(USER, "get", "cache:1") == "OK"
        assert r.acl_dryrun(USER, "get", "other") == \
            "This user has no permissions to access the 'other' key"
        # a dry run runs nothing and logs nothing
        assert r.exists("key") == 0
        assert r.acl_log() == []
        e = raises(ResponseError, r.acl_dryrun, "nosuchuser", "get", "k")
        assert e == "User 'nosuchuser' not found", e
        e = raises(ResponseError, r.acl_dryrun, USER, "nosuchcmd")
        assert e == "Command 'nosuchcmd' not found", e
        e = raises(ResponseError, r.acl_dryrun, USER, "get")
        assert e == "wrong number of arguments for 'get' command", e
    finally:
        r.acl_deluser(USER)


# ---- ACL DELUSER ----

def part_deluser(r):
    users = ["bogususer_%d" % i for i in range(5)]
    try:
        assert r.acl_deluser(USER) == 0
        assert r.acl_setuser(USER, enabled=False, reset=True)
        assert r.acl_deluser(USER) == 1
        assert r.acl_getuser(USER) is None
        for u in users:
            assert r.acl_setuser(u, enabled=False, reset=True)
        # names that do not exist are not counted
        assert r.acl_deluser(*users, "nosuchuser") == 5
        for u in users:
            assert r.acl_getuser(u) is None
        e = raises(ResponseError, r.acl_deluser, "default")
        assert e == "The 'default' user cannot be removed", e
        # a deleted user's connections are closed, its password is gone
        assert r.acl_setuser(USER, enabled=True, passwords=["+pw"], commands=["+ping"])
        u = client(username=USER, password="pw")
        assert u.ping()
        assert [c["user"] for c in r.client_list()].count(USER) == 1
        assert r.acl_deluser(USER) == 1
        assert [c["user"] for c in r.client_list()].count(USER) == 0
        # the client finds its connection closed, and its new one cannot log in
        assert raises(ResponseError, u.ping) == WRONGPASS
        u.close()
    finally:
        r.acl_deluser(USER, *users)
        r.acl_log_reset()


# ---- ACL GENPASS ----

def is_hex(s):
    return all(ch in "0123456789abcdef" for ch in s)


def part_genpass(r):
    a, b = r.acl_genpass(), r.acl_genpass()
    assert isinstance(a, str) and len(a) == 64 and is_hex(a), a
    assert a != b
    # checked by the client before anything is sent
    for bad in ("value", -5, 5555):
        raises(DataError, r.acl_genpass, bad)
    assert isinstance(r.acl_genpass(555), str)
    # the bits argument on the wire (python3-redis 4.3.4's acl_genpass drops it)
    for bits, chars in ((555, 139), (1, 1), (4, 1), (5, 2), (4096, 1024)):
        p = r.execute_command("ACL GENPASS", bits)
        assert len(p) == chars and is_hex(p), (bits, p)
    for bits in (0, -1, 4097):
        e = raises(ResponseError, r.execute_command, "ACL GENPASS", bits)
        assert e == ("ACL GENPASS argument must be the number of bits for the output "
                     "password, a positive number up to 4096"), e


# ---- ACL GETUSER / SETUSER ----

HASHED = "5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8"  # "password"


def part_getuser_setuser(r):
    try:
        assert r.acl_getuser(USER) is None
        # a user switched off, with nothing allowed
        assert r.acl_setuser(USER, enabled=False, reset=True)
        acl = r.acl_getuser(USER)
        assert acl["categories"] == ["-@all"], acl
        assert acl["commands"] == [] and acl["keys"] == [] and acl["passwords"] == []
        assert acl["channels"] == [] and acl["selectors"] == []
        assert "off" in acl["flags"] and acl["enabled"] is False
        assert acl["flags"] == ["off", "sanitize-payload"], acl["flags"]
        # nopass
        assert r.acl_setuser(USER, enabled=True, reset=True, nopass=True)
        acl = r.acl_getuser(USER)
        assert acl["flags"] == ["on", "nopass", "sanitize-payload"], acl["flags"]
        assert acl["enabled"] is True and acl["passwords"] == []
        assert acl["categories"] == ["-@all"] and acl["commands"] == []

        # every argument
        assert r.acl_setuser(USER, enabled=True, reset=True,
                             passwords=["+pass1", "+pass2"],
                             categories=["+set", "+@hash", "-geo"],
                             commands=["+get", "+mget", "-hset"],
                             keys=["cache:*", "objects:*"])
        acl = r.acl_getuser(USER)
        assert set(acl["categories"]) == {"-@all", "+@set", "+@hash"}, acl
        assert set(acl["commands"]) == {"+get", "+mget", "-hset"}, acl
        assert acl["enabled"] is True and "on" in acl["flags"]
        assert set(acl["keys"]) == {"~cache:*", "~objects:*"}, acl
        assert sorted(acl["passwords"]) == sorted([sha256("pass1"), sha256("pass2")])

        # without reset, new rules go on top of the old ones
        assert r.acl_setuser(USER, enabled=True, reset=True, passwords=["+pass1"],
                             categories=["+@set"], commands=["+get"], keys=["cache:*"])
        assert r.acl_setuser(USER, enabled=True, passwords=["+pass2"],
                             categories=["+@hash"], commands=["+mget"], keys=["objects:*"])
        acl = r.acl_getuser(USER)
        assert set(acl["categories"]) == {"-@all", "+@set", "+@hash"}, acl
        assert set(acl["commands"]) == {"+get", "+mget"}, acl
        assert set(acl["keys"]) == {"~cache:*", "~objects:*"}, acl
        assert len(acl["passwords"]) == 2
        # reset_keys / reset_passwords
        assert r.acl_setuser(USER, enabled=True, reset_keys=True, keys=["only:*"],
                             reset_passwords=True, passwords=["+pass3"])
        acl = r.acl_getuser(USER)
        assert acl["keys"] == ["~only:*"] and acl["passwords"] == [sha256("pass3")], acl

        # removing passwords
        assert r.acl_setuser(USER, enabled=True, reset=True, passwords=["+pass1", "+pass2"])
        assert len(r.acl_getuser(USER)["passwords"]) == 2
        assert r.acl_setuser(USER, enabled=True, passwords=["-pass2"])
        assert r.acl_getuser(USER)["passwords"] == [sha256("pass1")]
        e = raises(ResponseError, r.acl_setuser, USER, enabled=True, passwords=["-nosuch"])
        assert e == ("Error in ACL SETUSER modifier '<nosuch': The password you are trying "
                     "to remove from the user does not exist"), e

        # hashed passwords: stored as given, and the plain text authenticates
        assert r.acl_setuser(USER, enabled=True, reset=True,
                             hashed_passwords=["+" + HASHED], commands=["+acl|whoami"])
        assert r.acl_getuser(USER)["passwords"] == [HASHED]
        u = client(username=USER, password="password")
        assert u.acl_whoami() == USER
        u.close()
        assert r.acl_setuser(USER, enabled=True, reset=True,
                             hashed_passwords=["+" + HASHED], passwords=["+pass1"])
        assert len(r.acl_getuser(USER)["passwords"]) == 2
        assert r.acl_setuser(USER, enabled=True, hashed_passwords=["-" + HASHED])
        assert r.acl_getuser(USER)["passwords"] == [sha256("pass1")]
        e = raises(ResponseError, r.acl_setuser, USER, hashed_passwords=["+abc"])
        assert e == ("Error in ACL SETUSER modifier '#abc': The password hash must be "
                     "exactly 64 characters and contain only lowercase hexadecimal "
                     "characters"), e

        # channels and a selector
        assert r.acl_setuser(USER, enabled=True, reset=True,
                             passwords=["+pass1", "+pass2"],
                             categories=["+set", "+@hash", "-geo"],
                             commands=["+get", "+mget", "-hset"],
                             keys=["cache:*", "objects:*"],
                             channels=["message:*"],
                             selectors=[("+set", "%W~app*")])
        acl = r.acl_getuser(USER)
        assert set(acl["categories"]) == {"-@all", "+@set", "+@hash"}, acl
        assert set(acl["commands"]) == {"+get", "+mget", "-hset"}, acl
        assert set(acl["keys"]) == {"~cache:*", "~objects:*"}, acl
        assert len(acl["passwords"]) == 2
        assert acl["channels"] == ["&message:*"], acl
        assert acl["selectors"] == [
            ["commands", "-@all +set", "keys", "%W~app*", "channels", ""]], acl
        # the raw reply: flags, passwords, commands, keys, channels, selectors
        plain = client()
        plain.response_callbacks.pop("ACL GETUSER")
        raw = plain.execute_command("ACL GETUSER", USER)
        plain.close()
        assert [raw[i] for i in range(0, len(raw), 2)] == [
            "flags", "passwords", "commands", "keys", "channels", "selectors"], raw
        # categories in the table's order; commands in no order Redis promises
        rules = raw[5].split(" ")
        assert rules[:3] == ["-@all", "+@set", "+@hash"], rules
        assert sorted(rules[3:]) == ["+get", "+mget", "-hset"], rules
        assert raw[7] == "~cache:* ~objects:*" and raw[9] == "&message:*", raw
    finally:
        r.acl_deluser(USER)


# ---- selectors at work ----

def part_selectors(r):
    try:
        # root: reads of read:*; selectors: writes of write:*, reads of %R~shared:*
        assert r.acl_setuser(USER, enabled=True, reset=True, passwords=["+pw"],
                             commands=["+get"], keys=["read:*"],
                             selectors=[("+set", "write:*"), ("+get", "%R~shared:*")])
        assert r.acl_dryrun(USER, "get", "read:1") == "OK"
        assert r.acl_dryrun(USER, "set", "write:1", "v") == "OK"
        assert r.acl_dryrun(USER, "get", "shared:1") == "OK"
        assert r.acl_dryrun(USER, "set", "read:1", "v") == \
            "This user has no permissions to access the 'read:1' key"
        assert r.acl_dryrun(USER, "del", "read:1") == \
            "This user has no permissions to run the 'del' command"
        u = client(username=USER, password="pw")
        assert u.set("write:1", "v")
        assert u.get("read:1") is None
        assert u.get("shared:1") is None
        assert raises(NoPermissionError, u.get, "write:1") == NOPERM_KEY
        assert raises(NoPermissionError, u.set, "shared:1", "v") == NOPERM_KEY
        assert raises(NoPermissionError, u.delete, "write:1") == noperm_cmd("del")
        u.close()
        listed = [line for line in r.acl_list() if line.startswith("user %s " % USER)]
        assert listed == ["user %s on sanitize-payload #%s ~read:* resetchannels -@all +get "
                          "(~write:* resetchannels -@all +set) "
                          "(%%R~shared:* resetchannels -@all +get)" % (USER, sha256("pw"))], listed
        assert len(r.acl_getuser(USER)["selectors"]) == 2
        r.execute_command("ACL SETUSER", USER, "clearselectors")
        assert r.acl_getuser(USER)["selectors"] == []
        assert r.acl_dryrun(USER, "set", "write:1", "v") == \
            "This user has no permissions to run the 'set' command"
        e = raises(ResponseError, r.execute_command, "ACL SETUSER", USER, "(+set")
        assert e == ("Unmatched parenthesis in acl selector starting at '(+set'."), e
    finally:
        r.acl_deluser(USER)
        r.acl_log_reset()
        r.delete("write:1")


# ---- ACL HELP, LIST, USERS, WHOAMI ----

def part_help(r):
    lines = r.acl_help()
    assert isinstance(lines, list) and len(lines) > 0
    assert lines[0] == "ACL <subcommand> [<arg> [value] [opt] ...]. Subcommands are:", lines[0]
    heads = [line.split(" ")[0] for line in lines[1:] if not line.startswith(" ")]
    assert heads == ["CAT", "DELUSER", "DRYRUN", "GETUSER", "GENPASS", "LIST", "LOAD",
                     "LOG", "SAVE", "SETUSER", "USERS", "WHOAMI", "HELP"], heads
    assert lines[-1] == "    Prints this help.", lines[-1]
    e = raises(ResponseError, r.execute_command, "ACL NOSUCH")
    assert e == "unknown subcommand 'NOSUCH'. Try ACL HELP.", e


def part_list(r):
    try:
        assert r.acl_list() == ["user default on nopass ~* &* +@all"], r.acl_list()
        assert r.acl_setuser(USER, enabled=False, reset=True)
        users = r.acl_list()
        assert len(users) == 2
        assert users[1] == "user %s off sanitize-payload resetchannels -@all" % USER, users
        assert r.acl_setuser(USER, enabled=True, reset=True, passwords=["+p1"],
                             categories=["+@read"], commands=["-get"], keys=["k:*"],
                             channels=["ch"])
        assert r.acl_list()[1] == ("user %s on sanitize-payload #%s ~k:* resetchannels "
                                   "&ch -@all +@read -get" % (USER, sha256("p1"))), r.acl_list()
    finally:
        r.acl_deluser(USER)


def part_users(r):
    try:
        users = r.acl_users()
        assert users == ["default"], users
        assert r.acl_setuser("zz-" + USER) and r.acl_setuser("aa-" + USER)
        assert r.acl_users() == ["aa-" + USER, "default", "zz-" + USER], r.acl_users()
    finally:
        r.acl_deluser("zz-" + USER, "aa-" + USER)


def part_whoami(r):
    try:
        u = None
        assert r.acl_whoami() == "default"
        assert r.acl_setuser(USER, enabled=True, passwords=["+pw"], commands=["+acl|whoami"])
        u = client(username=USER, password="pw")
        assert u.acl_whoami() == USER
        # only the subcommand was granted
        assert raises(NoPermissionError, u.acl_users) == noperm_cmd("acl|users")
        # CLIENT LIST names the user of each connection
        mine = [c for c in r.client_list() if c["user"] == USER]
        assert len(mine) == 1 and mine[0]["cmd"] == "acl|users", mine
    finally:
        if u is not None:
            u.close()
        r.acl_deluser(USER)
        r.acl_log_reset()


# ---- ACL LOG ----

def part_log(r):
    r.acl_log_reset()
    try:
        assert r.acl_setuser(USER, enabled=True, reset=True, nopass=True,
                             commands=["+get", "+set", "+select", "+multi", "+exec",
                                       "+eval"],
                             keys=["cache:*"], channels=["ok"])
        u = client(username=USER)
        assert u.set("cache:0", 1)
        assert u.get("cache:0") == "1"
        assert r.acl_log() == []
        assert raises(NoPermissionError, u.get, "violated_cache:0") == NOPERM_KEY
        assert raises(NoPermissionError, u.hset, "cache:0", "hkey", "hval") == noperm_cmd("hset")
        log = r.acl_log()
        assert isinstance(log, list) and len(log) == 2
        assert len(r.acl_log(count=1)) == 1
        # newest first
        cmd, key = log
        assert isinstance(cmd, dict) and "client-info" in r.acl_log(count=1)[0]
        assert (cmd["reason"], cmd["context"], cmd["object"], cmd["username"], cmd["count"]) \
            == ("command", "toplevel", "hset", USER, 1), cmd
        assert (key["reason"], key["context"], key["object"], key["username"], key["count"]) \
            == ("key", "toplevel", "violated_cache:0", USER, 1), key
        assert isinstance(cmd["age-seconds"], float) and 0 <= cmd["age-seconds"] < 30
        ci = cmd["client-info"]
        assert ci["user"] == USER and ci["cmd"] == "hset", ci
        assert isinstance(ci["id"], int) and ci["db"] == 0, ci
        assert sorted(cmd) == ["age-seconds", "client-info", "context", "count", "object",
                               "reason", "username"], sorted(cmd)

        # the same denial again is counted in its entry, it is not a new one
        raises(NoPermissionError, u.hset, "cache:0", "hkey", "hval")
        log = r.acl_log()
        assert len(log) == 2 and log[0]["object"] == "hset" and log[0]["count"] == 2, log

        # a channel, a transaction, a script, a failed AUTH
        assert raises(NoPermissionError, u.execute_command, "SUBSCRIBE", "nope") \
            == noperm_cmd("subscribe")
        with u.pipeline(transaction=True) as p:
            p.get("cache:1")
            p.get("outside")
            raises(ResponseError, p.execute)
        e = raises(ResponseError, u.eval, "return redis.pcall('get', 'outside')", 0)
        assert e == "The user executing the script can't access at least one of the keys " \
            "mentioned in the command arguments", e
        assert raises(ResponseError, client(username="nobody", password="x").ping) == WRONGPASS
        log = r.acl_log()
        top = [(e["reason"], e["context"], e["object"], e["username"]) for e in log[:4]]
        assert top == [("auth", "toplevel", "AUTH", "nobody"),
                       ("key", "lua", "outside", USER),
                       ("key", "multi", "outside", USER),
                       ("command", "toplevel", "subscribe", USER)], top
        assert len(r.acl_log(count=3)) == 3

        # acllog-max-len bounds it, oldest dropped
        old = r.config_get("acllog-max-len")["acllog-max-len"]
        try:
            r.config_set("acllog-max-len", 2)
            raises(NoPermissionError, u.get, "more:1")
            assert [e["object"] for e in r.acl_log()] == ["more:1", "AUTH"], r.acl_log()
        finally:
            r.config_set("acllog-max-len", old)
        u.close()
        assert r.acl_log_reset() is True
        assert r.acl_log() == []
        e = raises(ResponseError, r.execute_command, "ACL LOG", "nope")
        assert e == "value is not an integer or out of range", e
    finally:
        r.acl_deluser(USER)
        r.acl_log_reset()
        r.delete("cache:0")


# ---- what python3-redis refuses before sending ----

def part_setuser_fails(r):
    try:
        raises(DataError, r.acl_setuser, USER, categories=["list"])
        raises(DataError, r.acl_setuser, USER, commands=["get"])
        raises(DataError, r.acl_setuser, USER, passwords="+mypass", nopass=True)
        raises(DataError, r.acl_setuser, USER, passwords=["mypass"])
        raises(DataError, r.acl_setuser, USER, hashed_passwords=[HASHED])
        assert r.acl_getuser(USER) is None
        # and what the server refuses: nothing of the rule list applies
        for args, err in (
                (("on", ">pw", "get"), "Error in ACL SETUSER modifier 'get': Syntax error"),
                (("on", "+nosuch"), "Error in ACL SETUSER modifier '+nosuch': Unknown "
                 "command or category name in ACL"),
                (("on", "+@nosuch"), "Error in ACL SETUSER modifier '+@nosuch': Unknown "
                 "command or category name in ACL"),
                (("on", "allkeys", "~x"), "Error in ACL SETUSER modifier '~x': Adding a "
                 "pattern after the * pattern (or the 'allkeys' flag) is not valid and does "
                 "not have any effect. Try 'resetkeys' to start with an empty list of "
                 "patterns"),
                (("on", "%Q~y"), "Error in ACL SETUSER modifier '%Q~y': Syntax error")):
            e = raises(ResponseError, r.execute_command, "ACL SETUSER", USER, *args)
            assert e == err, (args, e)
            assert r.acl_getuser(USER) is None
        assert r.acl_setuser(USER, enabled=False, reset=True)
        raises(ResponseError, r.execute_command, "ACL SETUSER", USER, "on", "+nosuch")
        assert r.acl_getuser(USER)["enabled"] is False
        # a password and nopass on the server: the last one wins
        assert r.execute_command("ACL SETUSER", USER, ">pw", "nopass")
        acl = r.acl_getuser(USER)
        assert "nopass" in acl["flags"] and acl["passwords"] == [], acl
    finally:
        r.acl_deluser(USER)


# ---- AUTH and HELLO AUTH ----

def part_auth(r):
    temp = "temp_pass"
    try:
        e = raises(ResponseError, r.auth, "x")
        assert e == "AUTH <password> called without any password configured for the " \
            "default user. Are you sure your configuration is correct?", e
        r.config_set("requirepass", temp)
        assert r.auth(temp, "default") is True
        assert r.auth(temp) is True
        assert r.acl_getuser("default")["passwords"] == [sha256(temp)]
        fresh = client()
        assert raises(AuthenticationError, fresh.get, "k") == "Authentication required."
        fresh.close()
        assert r.acl_setuser(USER, enabled=True, passwords=["+strong_password"],
                             commands=["+acl"])
        assert r.auth(username=USER, password="strong_password") is True
        assert r.acl_whoami() == USER
        # a failed AUTH leaves the connection as it was
        assert raises(ResponseError, r.auth, username=USER, password="wrong") == WRONGPASS
        assert r.acl_whoami() == USER
        assert raises(NoPermissionError, r.get, "k") == noperm_cmd("get")
        # a user switched off cannot log in
        assert r.auth(temp) is True
        assert r.acl_setuser(USER, enabled=False)
        assert raises(ResponseError, r.auth, username=USER, password="strong_password") \
            == WRONGPASS
        assert raises(ResponseError, client(username=USER, password="strong_password").ping) \
            == WRONGPASS
        assert r.acl_whoami() == "default"
    finally:
        try:
            r.auth(temp)
        except ResponseError:
            pass
        r.config_set("requirepass", "")
        r.acl_deluser(USER)
        r.acl_log_reset()
    assert r.acl_getuser("default")["flags"] == ["on", "nopass"], r.acl_getuser("default")


def part_default_off(r):
    """The default user switched off: new connections must authenticate."""
    try:
        assert r.acl_setuser(USER, enabled=True, passwords=["+pw"], categories=["+@all"],
                             keys=["*"], channels=["*"])
        assert r.execute_command("ACL SETUSER", "default", "off")
        anon = client()
        assert raises(AuthenticationError, anon.ping) == "Authentication required."
        anon.close()
        u = client(username=USER, password="pw")
        assert u.ping() and u.acl_whoami() == USER
        # a connection made as default before stays as it was
        assert r.acl_whoami() == "default"
        assert u.execute_command("ACL SETUSER", "default", "on")
        u.close()
        assert client().ping()
    finally:
        r.execute_command("ACL SETUSER", "default", "on")
        r.acl_deluser(USER)
        r.acl_log_reset()


def part_hello(r):
    try:
        assert r.acl_setuser(USER, enabled=True, passwords=["+pw"],
                             commands=["+acl|whoami", "+client|getname"])
        c = client()
        reply = c.execute_command("HELLO", "2", "AUTH", USER, "pw", "SETNAME", "app1")
        fields = dict(zip(reply[0::2], reply[1::2]))
        assert fields["server"] == "redis" and fields["proto"] == 2, fields
        assert fields["role"] == "master" and fields["mode"] == "standalone", fields
        assert c.acl_whoami() == USER
        assert c.client_getname() == "app1"
        # a failed HELLO AUTH changes nothing, not even the name
        e = raises(ResponseError, c.execute_command, "HELLO", "2", "AUTH", USER, "x",
                   "SETNAME", "other")
        assert e == WRONGPASS, e
        assert c.acl_whoami() == USER and c.client_getname() == "app1"
        e = raises(ResponseError, c.execute_command, "HELLO", "2", "AUTH", USER)
        assert e == "Syntax error in HELLO option 'AUTH'", e
        c.close()
        log = r.acl_log()
        assert [(e["reason"], e["object"], e["username"]) for e in log] == \
            [("auth", "HELLO", USER)], log
    finally:
        r.acl_deluser(USER)
        r.acl_log_reset()


# ---- commands, keys and channels of a user at work ----

def part_perms(r):
    try:
        assert r.acl_setuser(USER, enabled=True, passwords=["+pw"],
                             categories=["+@all", "-@dangerous"],
                             commands=["+config|get"], keys=["%R~ro:*", "%W~wo:*", "rw:*"],
                             channels=["news.*"])
        u = client(username=USER, password="pw")
        assert u.set("rw:1", "a") and u.get("rw:1") == "a"
        assert u.get("ro:1") is None
        assert u.set("wo:1", "b")
        assert raises(NoPermissionError, u.set, "ro:1", "x") == NOPERM_KEY
        assert raises(NoPermissionError, u.get, "wo:1") == NOPERM_KEY
        # a command reading one key and writing another
        assert raises(NoPermissionError, u.copy, "wo:1", "rw:2") == NOPERM_KEY
        assert u.copy("ro:1", "rw:2") is False
        assert raises(NoPermissionError, u.flushall) == noperm_cmd("flushall")
        assert raises(NoPermissionError, u.config_set, "maxmemory", "0") == \
            noperm_cmd("config|set")
        assert "maxmemory" in u.config_get("maxmemory")
        assert raises(NoPermissionError, u.keys, "*") == noperm_cmd("keys")
        # channels: PUBLISH and SUBSCRIBE on a pattern of channels
        assert u.publish("news.today", "x") == 0
        assert raises(NoPermissionError, u.publish, "sport", "x") == NOPERM_CHANNEL
        p = u.pubsub()
        p.subscribe("news.a")
        assert p.get_message(timeout=5)["type"] == "subscribe"
        p.close()
        p = u.pubsub()
        raises(NoPermissionError, lambda: (p.subscribe("sport"), p.get_message(timeout=5)))
        p.close()
        u.close()
        # the same denial twice (a key, a channel) is one entry counted twice
        counts = {(e["reason"], e["object"]): e["count"] for e in r.acl_log()}
        assert counts == {("command", "config|set"): 1, ("command", "flushall"): 1,
                          ("command", "keys"): 1, ("key", "ro:1"): 1, ("channel", "sport"): 2,
                          ("key", "wo:1"): 2}, counts
    finally:
        r.acl_deluser(USER)
        r.acl_log_reset()
        r.delete("rw:1", "rw:2", "wo:1")


# ---- users from the configuration ----

def part_userconf(r):
    """Run on a server started with user config lines (see the driver)."""
    assert r.acl_users() == ["admin", "app", "default"], r.acl_users()
    assert r.acl_list() == [
        "user admin on #%s ~* &* +@all" % sha256("adminpw"),
        "user app on #%s ~app:* resetchannels -@all +@string" % sha256("apppw"),
        # a config line defines the user afresh: "default off" is all it has
        "user default off sanitize-payload resetchannels -@all"], r.acl_list()
    a = client(username="app", password="apppw")
    assert a.set("app:1", "v") and a.get("app:1") == "v"
    assert raises(NoPermissionError, a.get, "other") == NOPERM_KEY
    a.close()
    assert r.delete("app:1") == 1
    e = raises(ResponseError, r.acl_save)
    assert e == "This Redis instance is not configured to use an ACL file. You may want to " \
        "specify users via the ACL SETUSER command and then issue a CONFIG REWRITE (assuming " \
        "you have a Redis configuration file set) in order to store users in the Redis " \
        "configuration.", e
    r.acl_log_reset()


def part_aclfile(r):
    """Run on a server started with --aclfile (its path is argv[3])."""
    path = sys.argv[3]
    assert r.acl_users() == ["admin", "default", "reader"], r.acl_users()
    assert r.acl_getuser("reader")["keys"] == ["~data:*"]
    try:
        assert r.acl_setuser(USER, enabled=True, passwords=["+pw"], commands=["+ping"])
        assert r.acl_save()
        with open(path) as f:
            saved = f.read().splitlines()
        assert saved == [
            "user admin on #%s ~* &* +@all" % sha256("adminpw"),
            "user default off nopass sanitize-payload ~* &* +@all",
            "user reader on #%s ~data:* resetchannels -@all +@read" % sha256("rpw"),
            "user %s on #%s resetchannels -@all +ping" % (USER, sha256("pw"))], saved
        # LOAD replaces the users with the file's, and closes the connections
        # of every user but the default one (replies first)
        assert r.acl_deluser(USER) == 1
        assert r.acl_setuser("transient")
        rd = client(username="reader", password="rpw")
        assert rd.get("data:1") is None
        old_ids = {int(c["id"]) for c in r.client_list()}
        assert len(old_ids) == 2, old_ids
        assert r.acl_load()
        r.connection_pool.disconnect()
        rd.close()
        assert r.acl_users() == ["admin", "default", "reader", USER], r.acl_users()
        left = [(c["id"], c["user"]) for c in r.client_list()]
        assert len(left) == 1 and int(left[0][0]) not in old_ids, (left, old_ids)
        u = client(username=USER, password="pw")
        assert u.ping()
        u.close()
        # a broken file: LOAD fails and the users stay as they were
        with open(path, "a") as f:
            f.write("user broken on +nosuchcmd\n")
        mine = r.client_id()
        e = raises(ResponseError, r.acl_load)
        assert r.client_id() == mine
        assert e == ("%s:5: Error in applying operation '+nosuchcmd': Unknown command or "
                     "category name in ACL. WARNING: ACL errors detected, no change to the "
                     "previously active ACL rules was performed" % path), e
        assert r.acl_users() == ["admin", "default", "reader", USER], r.acl_users()
    finally:
        with open(path, "w") as f:
            f.write("user admin on >adminpw ~* &* +@all\n"
                    "user reader on >rpw ~data:* +@read\n"
                    "user default off nopass sanitize-payload ~* &* +@all\n")
        r.acl_load()
        r.connection_pool.disconnect()
        r.acl_log_reset()


PARTS = {
    "cat": part_cat, "dryrun": part_dryrun, "deluser": part_deluser,
    "genpass": part_genpass, "getuser_setuser": part_getuser_setuser,
    "selectors": part_selectors, "help": part_help, "list": part_list,
    "users": part_users, "whoami": part_whoami, "log": part_log,
    "setuser_fails": part_setuser_fails, "auth": part_auth,
    "default_off": part_default_off, "hello": part_hello, "perms": part_perms,
    "userconf": part_userconf, "aclfile": part_aclfile,
}


def main():
    part = sys.argv[2]
    creds = {}
    if part in ("userconf", "aclfile"):
        creds = {"username": "admin", "password": "adminpw"}
    r = client(**creds)
    PARTS[part](r)
    r.close()
    print("redispy_acl: ok %s" % part)


if __name__ == "__main__":
    main()
