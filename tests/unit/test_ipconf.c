// SPDX-License-Identifier: GPL-2.0
/* test_ipconf.c: ip= in the kernel's and dracut's spellings. */
#include "unit.h"

#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "net/ipconf.h"

static struct ip_conf c;
static char err[256];

static int parse(const char *spec)
{
	err[0] = '\0';
	return ipconf_parse(spec, &c, err, sizeof(err));
}

static const char *ip(struct in_addr a)
{
	static char buf[4][INET_ADDRSTRLEN];
	static unsigned n;

	return inet_ntop(AF_INET, &a, buf[n++ % 4], INET_ADDRSTRLEN);
}

/* SPEC parses to METHOD on the interface IFACE ("": the first one). */
static void parses_to(const char *spec, enum ip_method method,
		      const char *iface)
{
	unit_case_int(spec, parse(spec), 0);
	unit_case_int(spec, c.method, method);
	unit_case_str(spec, c.iface, iface);
}

static void method_words(void **state)
{
	(void)state;
	parses_to("dhcp", IP_DHCP, "");
	parses_to("on", IP_DHCP, "");
	parses_to("any", IP_DHCP, "");
	parses_to("off", IP_OFF, "");
	parses_to("none", IP_OFF, "");
}

static void dracut_interface_form(void **state)
{
	(void)state;
	parses_to("enp1s0:dhcp", IP_DHCP, "enp1s0");
	assert_int_equal(parse("eth1:dhcp:9000"), 0);
	assert_int_equal(c.mtu, 9000);
	parses_to("eth0:off", IP_OFF, "eth0");
}

static void kernel_static_form(void **state)
{
	(void)state;
	parses_to("10.0.2.15::10.0.2.2:255.255.255.0:rescue:eth0:off:10.0.2.3",
		  IP_STATIC, "eth0");
	assert_string_equal(ip(c.addr), "10.0.2.15");
	assert_string_equal(ip(c.gateway), "10.0.2.2");
	assert_string_equal(ip(c.netmask), "255.255.255.0");
	assert_string_equal(c.hostname, "rescue");
	assert_int_equal(c.ndns, 1);
	assert_string_equal(ip(c.dns[0]), "10.0.2.3");
}

/* The kernel's ipconfig: a client address and no autoconf is static. */
static void client_without_autoconf_is_static(void **state)
{
	static const struct {
		const char *spec, *netmask;
	} cases[] = {
		{ "192.168.1.5:::::eth0", "255.255.255.0" },	/* class C */
		{ "10.1.2.3", "255.0.0.0" },			/* class A */
		{ "172.16.0.9::::::", "255.255.0.0" },		/* class B */
	};
	size_t i;

	(void)state;
	for (i = 0; i < UNIT_COUNT(cases); i++) {
		unit_case_int(cases[i].spec, parse(cases[i].spec), 0);
		unit_case_int(cases[i].spec, c.method, IP_STATIC);
		unit_case_str(cases[i].spec, ip(c.netmask), cases[i].netmask);
	}
}

static void empty_client_is_dhcp_on_the_named_device(void **state)
{
	(void)state;
	parses_to(":::::eth2:dhcp", IP_DHCP, "eth2");
	parses_to("::::myhost::", IP_DHCP, "");
	assert_string_equal(c.hostname, "myhost");
}

static void dracut_mtu_in_place_of_dns(void **state)
{
	(void)state;
	assert_int_equal(parse("10.0.0.2::10.0.0.1:255.255.255.0::eth0:none:1400"), 0);
	assert_int_equal(c.mtu, 1400);
	assert_int_equal(c.ndns, 0);
}

static void two_dns_servers(void **state)
{
	(void)state;
	assert_int_equal(parse("10.0.0.2::10.0.0.1:255.255.255.0::eth0:off:1.1.1.1:9.9.9.9:10.0.0.1"), 0);
	assert_int_equal(c.ndns, 2);
	assert_string_equal(ip(c.dns[1]), "9.9.9.9");
}

static void what_we_cannot_do_is_named(void **state)
{
	static const struct unit_refusal cannot[] = {
		{ "dhcp6", -EINVAL, "IPv6" },
		{ "eth0:auto6", -EINVAL, "IPv6" },
		{ "rarp", -EINVAL, "only DHCP" },
		{ "eth0:dhcp:1500:52:54:00:12:34:56", -EINVAL, "MAC" },
	};

	(void)state;
	unit_refused(parse, err, cannot, UNIT_COUNT(cannot));
}

static void bad_input_names_the_field(void **state)
{
	static const struct unit_refusal bad[] = {
		{ "", -EINVAL, NULL },
		{ "10.0.0.300::::::off", -EINVAL, "client address \"10.0.0.300\"" },
		{ "10.0.0.3::gw:::eth0:off", -EINVAL, "gateway \"gw\"" },
		{ ":::::eth0:static", -EINVAL, "client address" },
		{ "10.0.0.3::::::sometimes", -EINVAL, "autoconf \"sometimes\"" },
		{ "eth0:dhcp:12", -EINVAL, "MTU \"12\"" },
		{ "averyveryverylonginterface:dhcp", -EINVAL,
		  "not an interface name" },
		{ "a:b:c:d:e:f:g:h:i:j:k", -EINVAL, NULL },
	};

	(void)state;
	unit_refused(parse, err, bad, UNIT_COUNT(bad));
	/* no client address is fine where nothing is configured */
	assert_int_equal(parse(":::::eth0:off"), 0);
	assert_int_equal(c.method, IP_OFF);
}

static void description_for_the_log(void **state)
{
	char buf[128];

	(void)state;
	assert_int_equal(parse("10.0.2.15::10.0.2.2:255.255.255.0::eth0:off"), 0);
	ipconf_describe(&c, buf, sizeof(buf));
	assert_string_equal(buf, "10.0.2.15/24 via 10.0.2.2 on eth0");
	assert_int_equal(parse("dhcp"), 0);
	ipconf_describe(&c, buf, sizeof(buf));
	assert_string_equal(buf, "DHCP on the first Ethernet interface");
}

UNIT_MAIN(NULL, NULL,
	cmocka_unit_test(method_words),
	cmocka_unit_test(dracut_interface_form),
	cmocka_unit_test(kernel_static_form),
	cmocka_unit_test(client_without_autoconf_is_static),
	cmocka_unit_test(empty_client_is_dhcp_on_the_named_device),
	cmocka_unit_test(dracut_mtu_in_place_of_dns),
	cmocka_unit_test(two_dns_servers),
	cmocka_unit_test(what_we_cannot_do_is_named),
	cmocka_unit_test(bad_input_names_the_field),
	cmocka_unit_test(description_for_the_log))
