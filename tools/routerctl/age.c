/* SPDX-License-Identifier: BSD-3-Clause */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "age.h"

void
rctl_format_duration(long long seconds, char *buf, size_t len)
{
	long long minutes, hours;

	/* kubectl tolerates a second of skew between the machines' clocks. */
	if (seconds < -1) {
		snprintf(buf, len, "<invalid>");
		return;
	}
	if (seconds < 0)
		seconds = 0;
	if (seconds < 60 * 2) {
		snprintf(buf, len, "%llds", seconds);
		return;
	}
	minutes = seconds / 60;
	if (minutes < 10) {
		if (seconds % 60 == 0)
			snprintf(buf, len, "%lldm", minutes);
		else
			snprintf(buf, len, "%lldm%llds", minutes, seconds % 60);
		return;
	}
	if (minutes < 60 * 3) {
		snprintf(buf, len, "%lldm", minutes);
		return;
	}
	hours = minutes / 60;
	if (hours < 8) {
		if (minutes % 60 == 0)
			snprintf(buf, len, "%lldh", hours);
		else
			snprintf(buf, len, "%lldh%lldm", hours, minutes % 60);
	} else if (hours < 48) {
		snprintf(buf, len, "%lldh", hours);
	} else if (hours < 24 * 8) {
		if (hours % 24 == 0)
			snprintf(buf, len, "%lldd", hours / 24);
		else
			snprintf(buf, len, "%lldd%lldh", hours / 24, hours % 24);
	} else if (hours < 24 * 365 * 2) {
		snprintf(buf, len, "%lldd", hours / 24);
	} else if (hours < 24 * 365 * 8) {
		if ((hours / 24) % 365 == 0)
			snprintf(buf, len, "%lldy", hours / 24 / 365);
		else
			snprintf(buf, len, "%lldy%lldd", hours / 24 / 365, (hours / 24) % 365);
	} else {
		snprintf(buf, len, "%lldy", hours / 24 / 365);
	}
}

static int
digits(const char *s, int n, int *out)
{
	int i, v = 0;

	for (i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return 0;
}

int
rctl_parse_rfc3339(const char *s, time_t *t)
{
	int year, mon, day, hour, min, sec, oh = 0, om = 0, sign = 0;
	struct tm tm;
	time_t v;

	if (strlen(s) < 20 || digits(s, 4, &year) || s[4] != '-' || digits(s + 5, 2, &mon) ||
	    s[7] != '-' || digits(s + 8, 2, &day) || (s[10] != 'T' && s[10] != 't') ||
	    digits(s + 11, 2, &hour) || s[13] != ':' || digits(s + 14, 2, &min) ||
	    s[16] != ':' || digits(s + 17, 2, &sec))
		return -1;
	if (mon < 1 || mon > 12 || day < 1 || day > 31 || hour > 23 || min > 59 || sec > 60)
		return -1;
	s += 19;
	if (*s == '.') {
		s++;
		if (!isdigit((unsigned char)*s))
			return -1;
		while (isdigit((unsigned char)*s))
			s++;
	}
	if (*s == 'Z' || *s == 'z') {
		s++;
	} else if (*s == '+' || *s == '-') {
		sign = *s == '-' ? -1 : 1;
		if (digits(s + 1, 2, &oh) || s[3] != ':' || digits(s + 4, 2, &om))
			return -1;
		s += 6;
	} else {
		return -1;
	}
	if (*s != '\0')
		return -1;
	memset(&tm, 0, sizeof(tm));
	tm.tm_year = year - 1900;
	tm.tm_mon = mon - 1;
	tm.tm_mday = day;
	tm.tm_hour = hour;
	tm.tm_min = min;
	tm.tm_sec = sec;
	v = timegm(&tm);
	if (v == (time_t)-1)
		return -1;
	*t = v - sign * (oh * 3600 + om * 60);
	return 0;
}

void
rctl_format_age(const char *timestamp, time_t now, char *buf, size_t len)
{
	time_t created;

	if (timestamp == NULL || rctl_parse_rfc3339(timestamp, &created) < 0) {
		snprintf(buf, len, "<unknown>");
		return;
	}
	rctl_format_duration((long long)(now - created), buf, len);
}
