not a CGI script; served as a file
