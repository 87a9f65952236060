"""Forwards TCP connections from one address to another, for a test that needs a server reachable on an
address it does not listen on (a router's REST on its underlay address). Prints 'listening' once ready.

usage: tcp_forward.py LISTEN_ADDR LISTEN_PORT TO_ADDR TO_PORT
"""
import asyncio
import sys


async def pipe(reader, writer):
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    finally:
        writer.close()


async def main(listen, listen_port, to, to_port):
    async def handle(client_reader, client_writer):
        try:
            server_reader, server_writer = await asyncio.open_connection(to, to_port)
        except OSError:
            client_writer.close()
            return
        await asyncio.gather(pipe(client_reader, server_writer), pipe(server_reader, client_writer),
                             return_exceptions=True)

    server = await asyncio.start_server(handle, listen, listen_port)
    print("listening", flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])))
