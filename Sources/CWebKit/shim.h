#include <gtk/gtk.h>
#include <webkit2/webkit2.h>
#include <cairo.h>
#include <fontconfig/fontconfig.h>
