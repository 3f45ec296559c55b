import socket

from solution import get_positive

PORT = int("{PORT}")


def test_connects():
    with socket.create_connection(("127.0.0.1", PORT), timeout=2) as connection:
        connection.sendall(b"escaped")
    assert get_positive([1]) == [1]
