#include <gtk/gtk.h>
#include <webkit2/webkit2.h>
// libsoup 3: the HTTP server of `pageheight serve` (WebKitGTK loads pages with it too).
#include <libsoup/soup.h>
#include <cairo.h>
#include <fontconfig/fontconfig.h>
