#!/usr/bin/env python3
"""SSH password logins from a chosen source address, one connection each, with paramiko.

Usage: ssh_logins.py PORT SOURCE USER PASSWORD...
Prints one line per password: "accepted" or "refused".
"""
import socket
import sys

import paramiko


def login(port, source, user, password):
    sock = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(source, 0))
    transport = paramiko.Transport(sock)
    try:
        transport.start_client(timeout=10)
        transport.auth_password(user, password)
        return "accepted"
    except paramiko.AuthenticationException:
        return "refused"
    finally:
        transport.close()


def main():
    port, source, user = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    for password in sys.argv[4:]:
        print(login(port, source, user, password), flush=True)


if __name__ == "__main__":
    main()
