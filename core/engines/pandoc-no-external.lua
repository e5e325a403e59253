-- Links to outside the document are dropped before pandoc's writers run (core/engines/pandoc.ts):
-- an image or include pointing at an absolute path, a parent folder or any URL would otherwise be
-- read from the server's disk (or fetched) and embedded in the output, e.g. an EPUB. The image's
-- description stays. Pictures stored inside the document have relative names and are kept.
local function external(target)
  return target:match('^%a[%w+.-]*:') ~= nil or target:sub(1, 1) == '/' or target:sub(1, 1) == '\\' or target:find('..', 1, true) ~= nil
end

function Image(image)
  if external(image.src) then
    return image.caption
  end
end
