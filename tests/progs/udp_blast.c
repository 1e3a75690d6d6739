/* Sends DNS queries for example.com over UDP to 127.0.0.1:PORT as fast as the socket takes them,
 * for SECONDS: load for a DNS server under test, which need not answer.
 * usage: udp_blast PORT SECONDS */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static const unsigned char query[] = { 0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0,
					       7, 'e', 'x', 'a', 'm', 'p', 'l', 'e', 3, 'c', 'o', 'm', 0,
					       0, 1, 0, 1 };
	if (argc != 3) {
		fprintf(stderr, "usage: udp_blast PORT SECONDS\n");
		return 2;
	}
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons((unsigned short)atoi(argv[1])) };
	inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0)
		return 1;
	time_t end = time(NULL) + atoi(argv[2]);
	struct timespec pause = { 0, 1000000 };
	while (time(NULL) < end) {
		for (int i = 0; i < 64; i++)
			sendto(fd, query, sizeof(query), 0, (struct sockaddr *)&to, sizeof(to));
		nanosleep(&pause, NULL);
	}
	close(fd);
	return 0;
}
