-- Links to outside the document are dropped before pandoc's writers run (core/engines/pandoc.ts):
-- an image pointing at a path on the server or at a URL would otherwise be read from the server's
-- disk (or fetched) and embedded in the output, e.g. an EPUB. pandoc percent-decodes a path before
-- reading it ("%2Fetc%2Fpasswd" is /etc/passwd), so no spelling of a path is trusted: an image is
-- kept only when its picture is stored inside the document (pandoc's media bag, filled by the
-- reader from the document's own archive), where the writer takes it from too. The image's
-- description stays. Metadata that makes a writer read a file (a cover image, stylesheets, fonts)
-- is dropped as well.
local function decoded(target)
  return (target:gsub('%%(%x%x)', function(hex)
    return string.char(tonumber(hex, 16))
  end))
end

local function outside(target)
  return target:match('^%a[%w+.-]*:') ~= nil
    or target:sub(1, 1) == '/'
    or target:sub(1, 1) == '\\'
    or target:find('..', 1, true) ~= nil
end

local function embedded(target)
  if outside(target) or outside(decoded(target)) then
    return false
  end
  return pandoc.mediabag.lookup(target) ~= nil
end

function Image(image)
  if not embedded(image.src) then
    return image.caption
  end
end

local FILE_METADATA = { 'cover-image', 'epub-cover-image', 'css', 'stylesheet', 'epub-fonts', 'epub-embed-font' }

function Meta(meta)
  for _, key in ipairs(FILE_METADATA) do
    meta[key] = nil
  end
  return meta
end
