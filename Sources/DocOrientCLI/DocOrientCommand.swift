import DocOrient
